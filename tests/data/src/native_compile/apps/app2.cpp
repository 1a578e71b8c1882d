#include "shared.h"
#include "inclunused/inclunused.h"
// The header of inclunused is included but nothing of it is used.
int main(int argc, char **) { return shared_b(argc); }
