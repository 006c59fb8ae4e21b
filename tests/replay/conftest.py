"""Fixtures of the replay tests live in replay_support.py (a module name of its own: every conftest.py is
imported as `conftest`, so tests cannot import helpers from one)."""

from replay_support import *  # noqa: F401,F403 - fixtures for pytest
