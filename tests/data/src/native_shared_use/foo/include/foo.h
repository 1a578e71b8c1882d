#ifndef FOO_H
#define FOO_H
#define FOO_VERSION 3
static inline int foo_twice(int x) { return 2 * x; }
int foo_fn(void);
#endif
