#include "webp/types.h"
webp_int util_fn(void) { return 2; }
