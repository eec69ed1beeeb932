"""Hypothesis settings for every test (loaded by tests/conftest.py).

The ``property`` profile (the default) has no deadline: one example may be a whole
match, whose time varies with the rule set, the deal and how busy the machine is (a
deadline would be a timed assertion). Each test sets
its own ``max_examples`` (scaled by ``PROPERTY_SCALE``). Pick another profile
with ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "property",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("dev", parent=settings.get_profile("property"), max_examples=10)
# find failures fast, without the (slow, whole-match) shrinking
settings.register_profile(
    "noshrink",
    parent=settings.get_profile("property"),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "property"))
