"""Shared settings for the core tests.

Hypothesis profiles, chosen with the ``HYPOTHESIS_PROFILE`` environment variable:

- ``ci`` (default): 200 examples per property, no deadline; the whole core suite stays fast.
- ``long``: 100 000 examples per property, for a soak run (``HYPOTHESIS_PROFILE=long python -m pytest tests/core``).
"""

from __future__ import annotations

import os
import warnings

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("long", max_examples=100_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # When a property fails, Hypothesis's pytest plugin imports libcst (to suggest an @example patch), which
    # imports mypy_extensions.TypedDict and emits a DeprecationWarning; under `filterwarnings = error` that
    # turns the failure report into an INTERNALERROR that hides the falsifying example. Ignore only that.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="mypy_extensions.TypedDict is deprecated",
                                category=DeprecationWarning)
        yield
