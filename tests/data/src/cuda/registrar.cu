// A CUDA translation unit that also registers itself at start-up, as kernel libraries
// do (a registry entry made by a static object's constructor): its object's .init_array
// holds nvcc's fatbin registration and the C++ dynamic initializer.
#include <cstdio>

struct Registrar {
  explicit Registrar(const char* name) { std::printf("registered %s\n", name); }
};
static Registrar scale_cpu_kernel("scale");

__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }
void launch_scale(float* x) { scale<<<1, 32>>>(x); }
