#pragma once
// Declared here, defined in api/api.cpp; apps/app4.cpp only uses the inline function.
int api_fn(int x);
inline int api_twice(int x) { return 2 * x; }
