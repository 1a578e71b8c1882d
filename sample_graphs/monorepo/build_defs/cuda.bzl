"""A minimal cuda_library macro: nvcc in a genrule, the object wrapped in a cc_library.

Old Bazel (4.2.3, used offline here) has no CUDA rules; the graph shape is what matters:
`<name>` is a cc_library whose srcs come from the `<name>_nvcc` genrule over the .cu files.
"""

GENCODE = " ".join([
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
])

def cuda_library(name, srcs, hdrs = [], deps = [], tags = [], **kwargs):
    native.genrule(
        name = name + "_nvcc",
        srcs = srcs + hdrs,
        outs = [name + ".cu.o"],
        cmd = "/usr/local/bin/nvcc -c -std=c++17 -I. " + GENCODE +
              " $(location " + srcs[0] + ") -o $@",
        tags = tags,
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_nvcc"],
        hdrs = hdrs,
        deps = deps,
        linkopts = ["-lcudart"],
        tags = tags + ["cuda"],
        **kwargs
    )
