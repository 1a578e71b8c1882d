int shim_fn(void);
int main(void) { return shim_fn() != 7; }
