bazel-out/k8-fastbuild/bin/app/_objs/app_seldep/seldep.pic.o: \
 app/seldep.c /usr/include/stdc-predef.h
