#!/usr/bin/env bash
# ELF samples for tests/ingest/test_elf.py. Run from tests/data/.
set -eu
S=src/elf; O=elf; B=$(mktemp -d); mkdir -p "$O"
gcc -O1 -fPIC -c $S/hooks.c -o $B/hooks.o
g++ -O0 -fPIC -c $S/a_member_with_a_long_name.cc -o $B/a_member_with_a_long_name.o
gcc -O1 -fPIC -c $S/unused.c -o $B/unused.o
rm -f $O/libsample.a
( cd $B && ar rcs libsample.a hooks.o a_member_with_a_long_name.o ) && cp $B/libsample.a $O/
cp $B/hooks.o $O/hooks.o
gcc -shared $B/hooks.o $B/a_member_with_a_long_name.o -o $O/libsample.so -Wl,-soname,libsample.so.1
gcc -shared $B/unused.o -o $O/libunused.so -Wl,-soname,libunused.so
gcc -O1 $S/main.c -o $O/app -L$O -Wl,--no-as-needed -l:libsample.so -l:libunused.so
strip --strip-debug $O/* 2>/dev/null || true
rm -rf "$B"
