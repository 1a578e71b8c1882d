bazel-out/k8-fastbuild/bin/lib/_objs/sel/sel.pic.o: lib/sel.c \
 /usr/include/stdc-predef.h
