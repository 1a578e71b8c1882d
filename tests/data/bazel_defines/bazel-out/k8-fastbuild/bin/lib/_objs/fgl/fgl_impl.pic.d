bazel-out/k8-fastbuild/bin/lib/_objs/fgl/fgl_impl.pic.o: lib/fgl_impl.c \
 /usr/include/stdc-predef.h
