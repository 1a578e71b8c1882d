#include "repro_api/api.h"
int api_fn(int x) { return x + 11; }
