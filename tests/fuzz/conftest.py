"""Fixtures for the fuzz properties (Hypothesis profiles are suite-wide, in tests/conftest.py)."""

from __future__ import annotations

import warnings

import pytest


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # As in tests/core/conftest.py: a failing property makes Hypothesis import libcst, whose import warns;
    # under `filterwarnings = error` that would hide the falsifying example behind an INTERNALERROR.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="mypy_extensions.TypedDict is deprecated",
                                category=DeprecationWarning)
        yield
