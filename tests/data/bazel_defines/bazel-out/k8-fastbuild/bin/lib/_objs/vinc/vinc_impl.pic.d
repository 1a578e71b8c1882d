bazel-out/k8-fastbuild/bin/lib/_objs/vinc/vinc_impl.pic.o: \
 lib/vinc_impl.c /usr/include/stdc-predef.h
