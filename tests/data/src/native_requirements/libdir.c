int ext_fn(void);
int main(void) { return ext_fn() != 3; }
