"""Moved: redaction is :mod:`inspector.core.redaction`, a place of its own that captures and transports both use.

This name stays for code written against the old place until it is updated; new code imports
:mod:`inspector.core.redaction`.
"""

from inspector.core.redaction import *  # noqa: F403 - the old name of the same module, kept for old importers
