bazel-out/k8-fastbuild/bin/app/_objs/dyn_plain_test/dyn_plain.pic.o: \
 app/dyn_plain.c /usr/include/stdc-predef.h
