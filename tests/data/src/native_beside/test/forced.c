int main(void) { return UTILS_ANSWER == 42 ? 0 : 1; }
