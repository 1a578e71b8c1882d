"""Optional accelerated helpers (imported under try/except ImportError)."""
