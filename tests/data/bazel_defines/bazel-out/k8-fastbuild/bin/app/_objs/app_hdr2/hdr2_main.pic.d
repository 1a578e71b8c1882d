bazel-out/k8-fastbuild/bin/app/_objs/app_hdr2/hdr2_main.pic.o: \
 app/hdr2_main.c /usr/include/stdc-predef.h lib/hdr2.h
