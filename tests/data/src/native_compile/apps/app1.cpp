#include "shared.h"
#include "hdronly/hdr.h"
// app1 uses hdronly only through an inline function of its header (no symbol to link).
int main(int argc, char **) { return shared_a(hdr_twice(argc)); }
