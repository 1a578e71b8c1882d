#include <math.h>
#include <stdlib.h>
int main(int argc, char **argv) { return (int)cos(atof(argv[0]) + argc); }
