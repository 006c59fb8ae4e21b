"""The "Done when" of the replay issue, as a user's CI script would see it: `set -e` plus
`mcp-inspector replay ... -- <changed server>` fails the script; the unchanged server lets it go on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from replay_support import GREET, versioned

SCRIPT = Path(__file__).resolve().parent / "done_when.sh"


def run_script(capture: Path, server: list[str]) -> subprocess.CompletedProcess[str]:
    bash = shutil.which("bash")
    if bash is None:
        pytest.fail("bash is not on PATH; the Done-when test runs a bash script")
    env = {**os.environ, "MCP_INSPECTOR_PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([bash, str(SCRIPT), str(capture), *server], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, env=env)


def test_a_set_e_script_fails_when_the_replayed_server_changed(record):
    capture = record(versioned("--version", "1"), [GREET])
    result = run_script(capture, versioned("--version", "2"))
    assert result.returncode == 1
    assert "the replay matched" not in result.stdout
    assert '"hello, Ada (v1)" -> "hello, Ada (v2)"' in result.stdout


def test_the_same_script_goes_on_when_the_server_did_not_change(record):
    capture = record(versioned("--version", "1"), [GREET])
    result = run_script(capture, versioned("--version", "1"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "the replay matched"
