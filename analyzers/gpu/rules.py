"""The gpu family's rules: codes, names and help, importable without the detectors."""

from __future__ import annotations

from slim.model.findings import Rule

GPU_KERNELS = Rule(
    code="SLIM003",
    name="gpu-kernels-in-cpu-binary",
    summary="A CPU-only binary carries CUDA kernels (fatbins) that can never run.",
    help=(
        "The binary is CPU-only (a tag such as `cpu-only`, `cpu_only = true` in slim.toml, or "
        "--cpu-only) but its .nv_fatbin holds device code. slim names the kernels, the "
        "architectures and bytes, the target that brought them in (from the linker map or "
        "byte-identical fatbins in the given archives) and the first edge from non-GPU code "
        "into the GPU-only targets: cut it, or point it at the CPU variant when one exists. "
        "Pointing it there is proposed as removable only when the linker map's cross "
        "references (--cref) and the variant's archive show that it defines every symbol the "
        "link takes from what the cut removes, compile evidence shows no compile reads a "
        "header the variant does not provide, and the GPU target's archive shows that none of "
        "its linked objects runs a static initializer besides nvcc's fatbin registration (a "
        "registrar whose registration the cut would take away)."
    ),
)

UNUSED_ARCH = Rule(
    code="SLIM005",
    name="unused-cuda-arch",
    summary="Fatbin entries for GPU architectures the binary is never deployed on.",
    help=(
        "Given the deployed architectures (--cuda-archs sm_80,sm_90 or `cuda_archs` in "
        "slim.toml), cubins that no deployed GPU can load are dead weight: drop their "
        "-gencode flags. A cubin for sm_XY runs on sm_XZ with Z >= Y. PTX is JIT-compiled "
        "on newer GPUs and is reported as kept for forward compatibility, not as waste."
    ),
)

UNREADABLE = Rule(
    code="SLIM930",
    name="device-code-unreadable",
    summary="Part of a binary's CUDA device code could not be read.",
    help=(
        "A fatbin container or entry was corrupt, truncated or over the decompression "
        "limits. The rest of the binary was analyzed; GPU findings for it may be incomplete."
    ),
)
