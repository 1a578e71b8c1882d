#include "hdronly/hdr.h"
int hdr_out_of_line(int x) { return x + 5; }
