bazel-out/k8-fastbuild/bin/app/_objs/app_nouse/nouse_main.pic.o: \
 app/nouse_main.c /usr/include/stdc-predef.h
