"""Engine implementation; apps reach it through py.reexport."""
