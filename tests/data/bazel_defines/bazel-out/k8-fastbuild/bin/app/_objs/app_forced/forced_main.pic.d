bazel-out/k8-fastbuild/bin/app/_objs/app_forced/forced_main.pic.o: \
 app/forced_main.c /usr/include/stdc-predef.h lib/inc/i.h
