"""A private X server for the tests that need a real one (Xvfb): the window's width on small screens, where the
offscreen platform would keep a window inside its screen, and real key presses (xdotool)."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: How long an Xvfb server may take to start (it says its display number once it accepts connections)
XVFB_START_S = 30


@contextmanager
def xvfb(width: int, height: int) -> Iterator[str]:
    """An X server of its own (Xvfb, on a display number it picks free: ``-displayfd``; no TCP listener) with one
    screen of ``width`` x ``height``; its DISPLAY. Skips the test where Xvfb is not installed."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb): this test needs a real X server")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24",
                               "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    os.close(write)
    try:
        with os.fdopen(read) as said:  # the display number, written once the server accepts connections
            number = said.readline().strip() if select.select([said], [], [], XVFB_START_S)[0] else ""
        if not number:
            server.kill()
            pytest.fail(f"Xvfb did not start: {server.communicate()[1].decode(errors='replace')}")
        yield f":{number}"
    finally:
        server.terminate()
        server.communicate(timeout=10)  # and its stderr pipe closed
