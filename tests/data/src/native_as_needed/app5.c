#define _GNU_SOURCE
#include <dlfcn.h>
#include "core.h"
/* Finds hook_fn by name at run time: linked (DT_NEEDED), never called directly. */
int main(void) {
  int (*hook)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "hook_fn");
  if (!hook) return 3;
  return core_fn(hook(0));
}
