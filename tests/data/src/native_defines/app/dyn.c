int wrap_fn(void);
int main(void) { return wrap_fn() == 7 ? 0 : 1; }
