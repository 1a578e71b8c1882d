int b_fn(int x);
int main(void) { return b_fn(1) - 2; }
