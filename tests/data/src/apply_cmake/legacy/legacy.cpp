int legacy_read(int fd) { return fd * 3 + 1; }
