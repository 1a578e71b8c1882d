/* slim ELF sample: uses libsample.so's sample_entry, needs libunused.so for nothing */
extern int sample_entry(int);
int provided_elsewhere(int x) { return x; }
int main(int argc, char **argv) { (void)argv; return sample_entry(argc); }
