#define _GNU_SOURCE
#include <dlfcn.h>
/* Finds hook_fn by name among the loaded libraries: app7 links hooks for it. */
int host_run(void) {
  int (*hook)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "hook_fn");
  return hook ? hook(1) : 3;
}
