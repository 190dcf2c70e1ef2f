"""Shared fixtures (see tests/support/ for the real servers the tests start) and the
Hypothesis profiles: under CI (``CI`` set) examples are derandomized, so a run is
reproducible and a submission cannot fail on a new random draw; locally they vary."""

import os

from hypothesis import HealthCheck, settings

pytest_plugins = [
    "tests.support.redis_server",
    "tests.support.redis_cluster",
    "tests.support.server",
]

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
