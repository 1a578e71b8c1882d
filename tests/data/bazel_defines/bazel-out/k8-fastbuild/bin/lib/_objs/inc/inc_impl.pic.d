bazel-out/k8-fastbuild/bin/lib/_objs/inc/inc_impl.pic.o: lib/inc_impl.c \
 /usr/include/stdc-predef.h
