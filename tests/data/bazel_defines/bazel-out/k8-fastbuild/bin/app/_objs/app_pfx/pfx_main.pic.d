bazel-out/k8-fastbuild/bin/app/_objs/app_pfx/pfx_main.pic.o: \
 app/pfx_main.c /usr/include/stdc-predef.h \
 bazel-out/k8-fastbuild/bin/lib/_virtual_includes/pfx/ext/p.h
