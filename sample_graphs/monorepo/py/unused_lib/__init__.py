"""Formerly used CSV export helpers; the server still depends on it but never imports it."""
