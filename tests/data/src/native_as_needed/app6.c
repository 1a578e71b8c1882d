#include "core.h"
/* Asks whether probe.h is there (its include directory comes with the edge to probe);
   includes nothing of it and calls nothing: no depfile shows the probe. */
#if __has_include(<probe.h>)
#define HAVE_PROBE 1
#else
#define HAVE_PROBE 0
#endif
int main(void) { return HAVE_PROBE ? core_fn(-1) : 4; }
