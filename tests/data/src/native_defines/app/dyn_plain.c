int plain_fn(void);
int main(void) { return plain_fn() == 3 ? 0 : 1; }
