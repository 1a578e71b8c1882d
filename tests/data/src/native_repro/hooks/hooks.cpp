extern "C" int repro_hook(int x) { return x + 100; }
