bazel-out/k8-fastbuild/bin/lib/_objs/util/util.pic.o: lib/util.c \
 /usr/include/stdc-predef.h
