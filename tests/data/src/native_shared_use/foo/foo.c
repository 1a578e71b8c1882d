#include "foo.h"
int foo_fn(void) { return FOO_VERSION; }
