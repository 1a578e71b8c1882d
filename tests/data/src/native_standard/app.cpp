consteval int sq(int x) { return x * x; }
int main() { return sq(3) == 9 ? 0 : 1; }
