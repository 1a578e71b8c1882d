bazel-out/k8-fastbuild/bin/app/_objs/app_vinc/vinc_main.pic.o: \
 app/vinc_main.c /usr/include/stdc-predef.h \
 bazel-out/k8-fastbuild/bin/lib/_virtual_includes/vinc/vinc/v.h
