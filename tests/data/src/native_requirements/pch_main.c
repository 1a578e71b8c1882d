int main(void) { return PCH_K == 7 ? 0 : 1; }
