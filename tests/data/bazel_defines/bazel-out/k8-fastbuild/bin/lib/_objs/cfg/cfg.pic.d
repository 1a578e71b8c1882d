bazel-out/k8-fastbuild/bin/lib/_objs/cfg/cfg.pic.o: lib/cfg.c \
 /usr/include/stdc-predef.h
