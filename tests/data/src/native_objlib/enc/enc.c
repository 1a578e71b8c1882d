#include "webp/types.h"
webp_int enc_fn(void) { return 1; }
