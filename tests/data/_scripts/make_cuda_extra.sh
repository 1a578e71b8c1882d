#!/usr/bin/env bash
# Extra CUDA samples for the fatbin reader (tests/ingest/test_fatbin.py): the objects that
# fatbin_walk.txt describes but make_cuda.sh builds only in build/, kept here so every parser
# path (LZ4, -G headers, several containers in one section, archive members) is covered
# without nvcc. Run from tests/data. Needs nvcc 13.0 (the oracle was made with 13.0.88).
set -eu
OUT=cuda; B=build/cuda; mkdir -p "$OUT" "$B"
GENC="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
nvcc $GENC -O2 -c src/cuda/kern.cu -o $B/kern.o
nvcc $GENC -O2 -c src/cuda/main.cu -o $B/main.o
rm -f $B/libkern.a; ar rcs $B/libkern.a $B/kern.o
nvcc $GENC $B/main.o $B/libkern.a -o $B/app
for m in size speed balance none; do
  nvcc $GENC -O2 -Xfatbin=-compress-all --compress-mode=$m -c src/cuda/kern.cu -o $OUT/kern.cm-$m.o
done
nvcc -gencode arch=compute_80,code=sm_80 -G -c src/cuda/kern.cu -o $OUT/kern.G.o
cp $B/libkern.a $OUT/
# The executable is 1 MB (static cudart); keep only its device-code sections, bytes unchanged.
objcopy --only-section=.nv_fatbin --only-section=.nvFatBinSegment \
  --only-section=.symtab --only-section=.strtab $B/app $OUT/app.fatbin-sections.elf 2>/dev/null
# -rdc: two relocatable objects in an archive, device-linked into an executable; the
# executable keeps each object's __nv_relfatbin plus nvcc's device-link image in .nv_fatbin.
G80="-gencode arch=compute_80,code=sm_80"
printf 'void launch_rdc(int *p);\nint main() { launch_rdc(nullptr); return 0; }\n' > $B/m.cu
nvcc $G80 -rdc=true -c src/cuda/extra.cu -o $B/extra.o
nvcc $G80 -rdc=true -c src/cuda/extra2.cu -o $B/extra2.o
nvcc $G80 -rdc=true -c $B/m.cu -o $B/m.o
rm -f $OUT/librdc.a; (cd $B && ar rcs librdc.a extra.o extra2.o) && cp $B/librdc.a $OUT/
nvcc $G80 -rdc=true $B/m.o $B/librdc.a -o $B/app_rdc
objcopy --only-section=.nv_fatbin --only-section=__nv_relfatbin --only-section=.nvFatBinSegment \
  --only-section=__nv_module_id --only-section=.symtab --only-section=.strtab \
  $B/app_rdc $OUT/app_rdc.fatbin-sections.elf 2>/dev/null
# Arch- and family-specific images (nvcc's `a` and `f` targets) in a shared library, its
# device-code sections kept: the entry flags that tell sm_90a from sm_90, checked against
# cuobjdump's names of the same images.
GV="-gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_103f,code=sm_103f -gencode arch=compute_100,code=sm_100 \
  -gencode arch=compute_90a,code=compute_90a"
nvcc -shared -Xcompiler -fPIC $GV src/cuda/kern.cu -o $B/libvariants.so
objcopy --only-section=.nv_fatbin --only-section=.nvFatBinSegment --only-section=.symtab \
  --only-section=.strtab $B/libvariants.so $OUT/libvariants.fatbin-sections.so 2>/dev/null
${CUOBJDUMP:-cuobjdump} --list-elf --list-ptx $OUT/libvariants.fatbin-sections.so \
  > $OUT/libvariants.cuobjdump.txt
