#ifdef USE_DBG
int dbg_fn(void);
#endif
int main(void) {
#ifdef USE_DBG
  return dbg_fn() - 3;
#else
  return 0;
#endif
}
