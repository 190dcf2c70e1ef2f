"""Shared fixtures (see tests/support/ for the real servers the tests start) and the
Hypothesis profiles: under CI (``CI`` set) examples are derandomized, so a run is
reproducible and a submission cannot fail on a new random draw; locally they vary."""

import os

import pytest
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


# -- the order `make test` gives its pytest-xdist workers the files in ------------------
# `--dist loadfile --no-loadscope-reorder`: a file goes to one worker (its module fixtures
# are made once), the files in the order collected. The files of SLOW_FIRST go out first,
# so the suite ends on many short files and both workers finish together; in loadfile's
# own order (the files with the most tests first) the one-test files came last, the
# cluster soak (a minute) among them, while the other worker had nothing left to run.
# (--dist loadgroup cannot split a file instead: under pytest 9 its groups are ignored.)
SLOW_FIRST = (
    "tests/cluster/",
    "tests/browser/",
    "tests/server/test_faults.py",
    "tests/server/test_patches_from_events.py",
)


def _slowness(item: pytest.Item) -> int:
    path = item.nodeid
    return next(
        (i for i, prefix in enumerate(SLOW_FIRST) if path.startswith(prefix)), len(SLOW_FIRST)
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_slowness)  # stable: each file's tests stay together, in their order
