"""Start-up stays light: `--version` imports neither Qt nor the network stack, the window imports httpx and
pygments only when a session needs them, and the hidden --exit-when-shown flag (benchmarks/startup.py) works."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import ROOT, cli

HEAVY = ("PySide6", "httpx", "pygments", "asyncio", "qasync")


def imported_after(code: str) -> list[str]:
    """Which of HEAVY a fresh interpreter has imported after running ``code``."""
    probe = f"import sys\n{code}\nprint(__import__('json').dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_version_imports_neither_qt_nor_the_network_stack_nor_asyncio():
    code = ("from inspector.cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass")
    assert imported_after(code) == []


def test_help_imports_nothing_heavy_either():
    code = ("import contextlib, io\nfrom inspector.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main(['--help'])\n"
            "    except SystemExit:\n        pass")
    assert imported_after(code) == []


def test_the_main_window_module_leaves_httpx_and_pygments_until_a_session_needs_them():
    assert set(imported_after("import inspector.ui.main_window")) & {"httpx", "pygments"} == set()


def test_the_version_is_printed():
    done = cli("--version")
    assert done.returncode == 0 and done.stdout.startswith("mcp-inspector ")


def test_exit_when_shown_prints_shown_once_the_window_has_painted_and_exits_0(tmp_path):
    done = cli("--exit-when-shown", env={"QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path),
                                         "XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["shown"]


def test_the_command_line_imports_no_module_of_the_window(tmp_path):
    # record and replay (their help, and runs that fail at once), show, and the window's own --url checked
    # before a display is looked for: none of it may load inspector.ui
    runs = [["record", "--help"], ["replay", "--help"],
            ["record", "--out", str(tmp_path / "r.jsonl"), "--", "mcp-inspector-no-such-server"],
            ["record", "--out", str(tmp_path / "u.jsonl"), "--url", "htp:/x"],
            ["replay", str(tmp_path / "missing.jsonl")], ["show", str(tmp_path / "missing.jsonl")],
            ["--url", "htp:/x"], ["--url", "http://127.0.0.1:1/mcp", "-H", "X-Team: core"]]
    code = (f"import contextlib, io, json, sys\nfrom inspector.cli.main import main\ncodes = []\n"
            f"for argv in {runs!r}:\n"
            "    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            "        try:\n            codes.append(main(argv))\n"
            "        except SystemExit as exc:\n            codes.append(exc.code)\n"
            "print(json.dumps([codes, sorted(m for m in sys.modules if m.split('.')[:2] == ['inspector', 'ui'])]))")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**env, "XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path)}, check=False)
    assert done.returncode == 0, done.stderr
    codes, ui_modules = json.loads(done.stdout.splitlines()[-1])
    assert codes == [0, 0, 3, 2, 2, 2, 2, 2], "each run got as far as it should"
    assert ui_modules == []
