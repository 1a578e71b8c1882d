int glue_fn(int x);
int main(void) { return glue_fn(1) - 2; }
