#pragma once
int dual_a_fn(int x);
inline int dual_twice(int x) { return 2 * x; }
