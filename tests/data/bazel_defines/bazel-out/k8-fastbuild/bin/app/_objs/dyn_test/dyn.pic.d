bazel-out/k8-fastbuild/bin/app/_objs/dyn_test/dyn.pic.o: app/dyn.c \
 /usr/include/stdc-predef.h
