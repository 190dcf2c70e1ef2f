"""Shared test vectors (JSON) run by the Python tests and by the browser tests."""
