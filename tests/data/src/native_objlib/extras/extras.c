#include "webp/types.h"
webp_int enc_fn(void);
webp_int extras_fn(void) { return enc_fn() + 1; }
