"""The PyInstaller app (installers/build.sh) works as the command and as the window, with nothing but itself.

Building it takes one to two and a half minutes on two cores and about 900 MB of disk (a venv with PySide6 and
PyInstaller, cached in the test cache folder, plus the build), so it runs only when asked:

    MCP_INSPECTOR_BUILD_FROZEN=1 python -m pytest tests/packaging/test_frozen_app.py

The app is built once per run into a temporary folder; every test then runs the frozen binary with a HOME of
its own, no PYTHONPATH and no display (the window test uses Qt's offscreen platform).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT
from packaging_support import home_env, run, venv, wait_for

from inspector import __version__

pytestmark = [
    pytest.mark.frozen,
    pytest.mark.xdist_group("frozen-venv"),  # one build, on one worker (pytest-xdist)
    pytest.mark.skipif(os.environ.get("MCP_INSPECTOR_BUILD_FROZEN") != "1",
                       reason="builds the PyInstaller app (1-3 min): set MCP_INSPECTOR_BUILD_FROZEN=1 to run it"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the spec builds and is tested on Linux"),
]

BUILD_TIMEOUT = 1800.0
PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'


@dataclass
class Frozen:
    binary: Path
    seconds: float
    megabytes: float


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> Frozen:
    python = venv("frozen-venv", "pyinstaller>=6.10", "websocket")
    out = tmp_path_factory.mktemp("frozen")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(VENV=str(python.parent.parent), DIST=str(out / "dist"), WORK=str(out / "work"))
    started = time.monotonic()
    done = run(["bash", str(ROOT / "installers" / "build.sh")], timeout=BUILD_TIMEOUT, what="installers/build.sh",
               env=env)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    folder = out / "dist" / "mcp-inspector"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return Frozen(folder / "mcp-inspector", seconds, size / 1e6)


def test_the_frozen_app_builds_in_a_few_minutes(frozen: Frozen, record_property):
    record_property("build_seconds", round(frozen.seconds))
    record_property("size_mb", round(frozen.megabytes))
    print(f"\nfrozen app: built in {frozen.seconds:.0f} s, {frozen.megabytes:.0f} MB, {frozen.binary}")
    assert frozen.seconds < BUILD_TIMEOUT
    assert frozen.megabytes < 400  # the Qt modules it never imports stay out


def test_the_frozen_app_says_its_version(frozen: Frozen, tmp_path):
    done = run([str(frozen.binary), "--version"], timeout=60, what="--version", env=home_env(tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"mcp-inspector {__version__}\n")


def test_the_frozen_app_runs_the_bundled_demo_server_as_its_own_python(frozen: Frozen, tmp_path):
    done = run([str(frozen.binary), "-m", "inspector.demo"], timeout=60, what="-m inspector.demo",
               env=home_env(tmp_path), cwd=tmp_path, input=PING)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_the_frozen_demo_runs_headless_where_there_is_no_display(frozen: Frozen, tmp_path):
    done = run([str(frozen.binary), "--demo"], timeout=120, what="--demo", env=home_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no display here, so the demo runs headless" in done.stderr
    assert "6 sent, 6 received, 2 framing errors, 1 stderr line; server exited with code 0" in done.stdout
    assert len(list((tmp_path / "data" / "mcp-inspector" / "captures").glob("demo-*.jsonl"))) == 1


def test_the_frozen_window_starts_offscreen_with_a_live_session_against_the_demo_server(frozen: Frozen, tmp_path):
    captures = tmp_path / "data" / "mcp-inspector" / "captures"

    def capture_text() -> str:
        found = sorted(captures.glob("demo-*.jsonl")) if captures.exists() else []
        return found[0].read_text(encoding="utf-8") if found else ""

    def answered() -> bool:  # the demo server's answer to the handshake, written by the window's live session
        return any('"dir":"s2c"' in line and "mcp-inspector-demo" in line for line in capture_text().splitlines())

    window = subprocess.Popen([str(frozen.binary), "--demo"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=home_env(tmp_path, QT_QPA_PLATFORM="offscreen"))
    try:
        wait_for(window, answered, 60, "the demo server's answer in the window's capture")
        window.send_signal(signal.SIGTERM)  # closes the window the normal way: the server is shut down first
        out, err = window.communicate(timeout=30)
    finally:
        if window.poll() is None:
            window.kill()
            window.communicate(timeout=30)
    assert window.returncode == 0, err
    assert b"Traceback" not in err
    last = json.loads(capture_text().splitlines()[-1])
    assert (last["kind"], last["data"]["what"], last["data"].get("code")) == ("lifecycle", "exited", 0)


def test_a_config_wrapped_by_the_frozen_app_starts_its_server_through_the_frozen_tap(frozen: Frozen, tmp_path):
    home = tmp_path / "home"
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": str(frozen.binary),
                                                          "args": ["-m", "inspector.demo"]}}}, indent=2))
    wrapped = run([str(frozen.binary), "wrap", str(config), "--all"], timeout=60, what="wrap",
                  env=home_env(home), cwd=tmp_path)
    assert wrapped.returncode == 0, wrapped.stderr
    assert "does not import this mcp-inspector" not in wrapped.stderr  # wrap's own check runs frozen too
    entry = json.loads(config.read_text())["mcpServers"]["demo"]
    assert entry["command"] == str(frozen.binary)
    assert entry["args"][:3] == ["-m", "inspector", "tap"]
    # what the client does: start the entry's command and talk to it
    done = run([entry["command"], *entry["args"]], timeout=60, what="the wrapped entry", env=home_env(home),
               cwd=tmp_path, input=PING)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    tapped = list((home / "data" / "mcp-inspector" / "captures").glob("*.jsonl"))
    assert len(tapped) == 1
    events = [json.loads(line) for line in tapped[0].read_text().splitlines()[1:]]
    assert [(e["dir"], json.loads(e["raw"])) for e in events if e["kind"] == "message"] == \
        [("c2s", json.loads(PING)), ("s2c", {"jsonrpc": "2.0", "id": 1, "result": {}})]


def test_the_frozen_app_installs_a_menu_entry_that_starts_itself(frozen: Frozen, tmp_path):
    done = run([str(frozen.binary), "install-desktop"], timeout=120, what="install-desktop", env=home_env(tmp_path),
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    entry = (tmp_path / "data" / "applications" / "mcp-inspector.desktop").read_text()
    assert f"Exec={frozen.binary} %f" in entry.splitlines()
    assert (tmp_path / "data" / "icons" / "hicolor" / "256x256" / "apps" / "mcp-inspector.png").exists()

