bazel-out/k8-fastbuild/bin/lib/_objs/wrap/wrap.pic.o: lib/wrap.c \
 /usr/include/stdc-predef.h
