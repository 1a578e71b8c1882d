bazel-out/k8-fastbuild/bin/app/_objs/app_fgh/fgh_main.pic.o: \
 app/fgh_main.c /usr/include/stdc-predef.h \
 bazel-out/k8-fastbuild/bin/lib/_virtual_includes/fgl/fgl/fg.h
