"""Shared fixtures: see tests/support/ for the real servers the tests start."""

pytest_plugins = ["tests.support.redis_server", "tests.support.server"]
