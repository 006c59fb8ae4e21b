"""The desktop app as a real separate process (tests/ui/gui_driver.py), for the crash-safety and security
tests: started offscreen with every per-user folder in a temporary HOME, its progress read from the driver's
JSON lines, and stopped (with its server's process group) whatever happens.

Import as ``gui_process`` from tests/ui, as ``ui.gui_process`` from elsewhere (tests/ is on the path).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers import ROOT, wait_until

DRIVER = Path(__file__).resolve().parent / "gui_driver.py"


def private_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment with HOME and every XDG folder inside ``home`` (a test's own user folders), offscreen Qt,
    and no bytecode writes (Python's own cache is not the app's doing)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "MCP_INSPECTOR_"))}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
            "QT_QPA_PLATFORM": "offscreen", "PYTHONDONTWRITEBYTECODE": "1", **extra}


class Lines:
    """A process's stdout, one JSON object per line, read without blocking (callers wait with wait_until)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        self.fd = process.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.items: list[dict[str, Any]] = []
        self._partial = b""

    def poll(self) -> list[dict[str, Any]]:
        try:
            self._partial += os.read(self.fd, 65536)
        except BlockingIOError:
            pass
        *complete, self._partial = self._partial.split(b"\n")
        self.items += [json.loads(line) for line in complete if line.startswith(b"{")]
        return self.items

    def find(self, key: str) -> dict[str, Any] | None:
        return next((item for item in self.poll() if key in item), None)


class GuiApp:
    """``mcp-inspector APP_ARGS`` in the window, driven by gui_driver.py (``--call``, ``--quit-when-answered``)."""

    def __init__(self, app_args: list[str], env: dict[str, str], *, call: str | None = None,
                 quit_when_answered: bool = False, prefix: list[str] | None = None) -> None:
        driver = [str(DRIVER)] + (["--call", call] if call else []) + \
            (["--quit-when-answered"] if quit_when_answered else [])
        self.process = subprocess.Popen([*(prefix or []), sys.executable, *driver, "--", *app_args], cwd=ROOT,
                                        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines = Lines(self.process)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_for(self, key: str, timeout: float = 60) -> dict[str, Any]:
        wait_until(lambda: self.process.poll() is not None or self.lines.find(key) is not None, timeout,
                   f"the window's {key!r} line")
        found = self.lines.find(key)
        assert found is not None, f"the window exited ({self.process.returncode}) before {key!r}: {self.lines.items}"
        return found

    def ready(self, timeout: float = 60) -> dict[str, Any]:
        state = self.wait_for("state", timeout)
        assert state["state"] == "ready", state
        return state

    def stop(self) -> None:
        """SIGKILL the window if it still runs, then the server's process group it may have left behind."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        state = self.lines.find("state")
        assert self.process.stdout is not None
        self.process.stdout.close()
        if state and state.get("capture"):
            kill_server_group(Path(state["capture"]))


def kill_server_group(capture: Path) -> None:
    """Kill the process group of the server a capture says was spawned (servers run in their own group)."""
    try:
        text = capture.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        if '"what":"spawned"' in line:
            try:
                os.killpg(json.loads(line)["data"]["pid"], signal.SIGKILL)
            except (ProcessLookupError, ValueError, KeyError):
                pass
            return
