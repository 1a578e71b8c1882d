bazel-out/k8-fastbuild/bin/lib/_objs/plain/plain.pic.o: lib/plain.c \
 /usr/include/stdc-predef.h
