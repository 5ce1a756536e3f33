"""Helpers for tests, benchmarks and users: tiny randomly-initialised models built offline."""
