// slim ELF sample: C++ names (mangled), an inline function (COMDAT, weak but not a hook)
namespace slim { inline int twice(int x) { return 2 * x; } int api(int x) { return twice(x); } }
