"""Shared settings for the core tests (the Hypothesis profiles are suite-wide, in tests/conftest.py)."""

from __future__ import annotations

import warnings

import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # When a property fails, Hypothesis's pytest plugin imports libcst (to suggest an @example patch), which
    # imports mypy_extensions.TypedDict and emits a DeprecationWarning; under `filterwarnings = error` that
    # turns the failure report into an INTERNALERROR that hides the falsifying example. Ignore only that.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="mypy_extensions.TypedDict is deprecated",
                                category=DeprecationWarning)
        yield
