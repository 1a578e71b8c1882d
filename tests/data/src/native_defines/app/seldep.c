#ifdef USE_OPT
int optlib_fn(void);
#endif
int main(void) {
#ifdef USE_OPT
  return optlib_fn() - 2;
#else
  return 0;
#endif
}
