"""The MCP Apps tests render apps in Qt WebEngine, offscreen.

Chromium's sandbox cannot run as root, which is how these tests run in the project's containers. The product
never turns it off by itself (tests/cli/test_app_command.py checks that it refuses instead); these tests turn it
off explicitly, as a user running as root would have to, for this test process and what it starts.
"""

from __future__ import annotations

import os

if os.geteuid() == 0:
    os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # explicit, and only as root: see above
