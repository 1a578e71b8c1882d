#include <dlfcn.h>
#include <stdio.h>
/* Links plugin2 and calls nothing of it, but loads it by a name built at run time (as a
   plugin host does): "libplugin2" is in no data of the program. */
int main(int argc, char **argv) {
    char name[64];
    (void)argv;
    snprintf(name, sizeof name, "lib%s%d.so", "plugin", argc + 1);
    return dlopen(name, RTLD_NOW) ? 0 : 2;
}
