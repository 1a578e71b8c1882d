#include "helper/helper.h"
int helper_fn(int x) { return 2 * x; }
