"""The documented shortcuts in a real window on a real X server (Xvfb), pressed with real key events
(xdotool's XTEST): each does its job, and Qt never reports an ambiguous shortcut. Skipped where Xvfb or
xdotool is not installed (Debian: xvfb, xdotool, libxcb-cursor0, libxkbcommon-x11-0)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from x_server import xvfb

SCRIPT = Path(__file__).with_name("real_window_keys.py")
SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("Xvfb") is None or shutil.which("xdotool") is None,
                       reason="needs Xvfb and xdotool (Debian packages xvfb, xdotool)"),
]


@pytest.fixture
def x_display():
    """A private Xvfb display (tests/ui/x_server.py)."""
    with xvfb(1400, 900) as display:
        yield display


def test_the_documented_shortcuts_work_in_a_real_window_and_none_is_ambiguous(x_display, tmp_path):
    env = {**os.environ, "DISPLAY": x_display, "QT_QPA_PLATFORM": "xcb"}
    picture = tmp_path / "window.png"
    run = subprocess.run([sys.executable, str(SCRIPT), str(SAMPLE), str(picture)], env=env, capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout.strip().splitlines()[-1])
    assert results == {"active": True, "ctrl+j": True, "ctrl+j back": True, "F8": True, "ctrl+shift+c": True,
                       "ctrl+shift+x": True}
    assert "Ambiguous" not in run.stderr
    assert picture.stat().st_size > 10_000
