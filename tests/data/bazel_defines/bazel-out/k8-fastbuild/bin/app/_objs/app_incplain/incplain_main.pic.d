bazel-out/k8-fastbuild/bin/app/_objs/app_incplain/incplain_main.pic.o: \
 app/incplain_main.c /usr/include/stdc-predef.h lib/inc/i.h
