"""Shared settings for the core tests.

Hypothesis profiles, chosen with the ``HYPOTHESIS_PROFILE`` environment variable:

- ``ci`` (default): 200 examples per property, no deadline; the whole core suite stays fast.
- ``long``: 100 000 examples per property, for a soak run (``HYPOTHESIS_PROFILE=long python -m pytest tests/core``).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("long", max_examples=100_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
