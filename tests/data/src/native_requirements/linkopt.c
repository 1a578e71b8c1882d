extern char app_answer[];
int main(void) { return (long)app_answer != 42; }
