"""Compile-time evidence: compiler depfiles (`-MD`) and `ninja -t deps` as facts."""
