#pragma once
inline int hdr_twice(int x) { return 2 * x; }
int hdr_out_of_line(int x);
