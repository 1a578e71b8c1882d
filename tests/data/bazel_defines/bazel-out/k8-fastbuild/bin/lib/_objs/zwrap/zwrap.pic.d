bazel-out/k8-fastbuild/bin/lib/_objs/zwrap/zwrap.pic.o: lib/zwrap.c \
 /usr/include/stdc-predef.h
