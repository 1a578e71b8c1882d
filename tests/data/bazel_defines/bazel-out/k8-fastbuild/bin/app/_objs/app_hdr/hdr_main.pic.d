bazel-out/k8-fastbuild/bin/app/_objs/app_hdr/hdr_main.pic.o: \
 app/hdr_main.c /usr/include/stdc-predef.h lib/hdr.h lib/util.h
