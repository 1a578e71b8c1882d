/* slim ELF sample: a weak hook, a constructor, a global, an undefined reference */
extern int provided_elsewhere(int);
__attribute__((weak)) void sample_hook(void) {}
static int ready;
__attribute__((constructor)) static void sample_init(void) { ready = 1; }
int sample_counter = 3;
int sample_entry(int x) { return provided_elsewhere(x) + ready + sample_counter; }
