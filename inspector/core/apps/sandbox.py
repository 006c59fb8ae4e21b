"""Whether the web engine that renders apps can run with Chromium's sandbox here, asked before Qt is loaded.

An app's HTML comes from a server and is untrusted: its renderer runs in Chromium's sandbox. Chromium refuses
to start its sandbox as root (and ends the whole process if asked to), and Qt WebEngine runs without it only
when the user sets ``QTWEBENGINE_DISABLE_SANDBOX=1`` (https://doc.qt.io/qt-6/qtwebengine-platform-notes.html#sandboxing-support).
The inspector never sets that variable itself: where the sandbox cannot run it says so in one sentence and
renders nothing, unless the user set it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

SANDBOX_VARIABLE = "QTWEBENGINE_DISABLE_SANDBOX"


def sandbox_disabled_by_user(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the user turned the sandbox off (``QTWEBENGINE_DISABLE_SANDBOX`` set to anything but 0 or empty)."""
    value = (os.environ if environ is None else environ).get(SANDBOX_VARIABLE, "")
    return value.strip() not in ("", "0")


def sandbox_refusal(environ: Mapping[str, str] | None = None, euid: int | None = None) -> str | None:
    """Why apps cannot be rendered here, as one sentence; None when they can (the sandbox can run, or the user
    turned it off themselves)."""
    if sandbox_disabled_by_user(environ) or sys.platform in ("win32", "darwin"):
        return None
    uid = euid if euid is not None else os.geteuid()
    if uid == 0:
        return (f"apps are not rendered as root, where Chromium's sandbox cannot run; to render them without the "
                f"sandbox anyway, set {SANDBOX_VARIABLE}=1 yourself (the app's HTML then runs unsandboxed)")
    return None


def unsandboxed_sentence(environ: Mapping[str, str] | None = None) -> str | None:
    """The sentence that says apps run without Chromium's sandbox because the user asked for it; None when
    they run sandboxed."""
    if sandbox_disabled_by_user(environ) and sys.platform not in ("win32", "darwin"):
        return (f"apps run without Chromium's sandbox, as {SANDBOX_VARIABLE} asks: their HTML is confined only by "
                "the inspector's own policy")
    return None
