bazel-out/k8-fastbuild/bin/app/_objs/app_fg/fg_main.pic.o: app/fg_main.c \
 /usr/include/stdc-predef.h
