bazel-out/k8-fastbuild/bin/app/_objs/app_inc/inc_main.pic.o: \
 app/inc_main.c /usr/include/stdc-predef.h lib/inc/i.h
