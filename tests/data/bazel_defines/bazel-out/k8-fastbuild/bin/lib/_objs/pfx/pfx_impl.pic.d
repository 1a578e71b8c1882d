bazel-out/k8-fastbuild/bin/lib/_objs/pfx/pfx_impl.pic.o: lib/pfx_impl.c \
 /usr/include/stdc-predef.h
