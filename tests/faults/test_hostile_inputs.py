"""Hostile inputs (issue 26, point 5): files and processes that ended in a traceback instead of a sentence: a
capture whose ``argv`` is not a list, a client config or an MCP Inspector history nested about a thousand levels
deep, and a server whose grandchild holds its stdout open after it is gone. Each is run as a user runs it (a
real ``mcp-inspector`` process; the window, offscreen, for an opened capture) and must end in one sentence.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt makes the QApplication

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.integration_support import REPO, cli_env, run_inspector
from qt_loop import open_test_window
from qt_loop import qloop as qloop  # the shared fixture (re-exported so pytest finds it here)

from inspector.core.exits import EXIT_BAD_INPUT

pytestmark = [pytest.mark.integration]

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "data" / "sample-v1.jsonl"
HOLD = HERE / "servers" / "stdio_hold.py"
#: bound on one CLI run of these cases (a check of a server that ignores SIGTERM takes about 15 s)
CLI_BOUND = 60.0


def run(*args: str) -> tuple[object, float]:
    started = time.monotonic()
    done = run_inspector(list(args), timeout=CLI_BOUND)
    return done, time.monotonic() - started


def sentence_of(done) -> str:
    """The one ``mcp-inspector...:`` line on stderr (no traceback, nothing else)."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("mcp-inspector"), done.stderr
    return lines[0]


# -- a capture whose argv is not a list of words ------------------------------------------------------------


def capture_with_argv(folder: Path, argv: object) -> Path:
    """The sample capture with its header's ``target.argv`` replaced (as a hand-edited or hostile file has it)."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["target"]["argv"] = argv
    path = folder / f"argv-{json.dumps(argv)}.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return path


@pytest.mark.report("faults", "a capture whose argv is 5 or null", surface="CLI", group="hostile",
                    advice="Nothing to fix: the capture is shown and exported; only its command line is unknown.")
def test_show_and_export_take_a_capture_whose_argv_is_a_number(tmp_path, report):
    path = capture_with_argv(tmp_path, 5)
    done, seconds = run("show", str(path))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and done.stderr == ""
    first = done.stdout.splitlines()[0]
    report.saw(first, seconds=seconds)
    assert first.startswith("capture of stdio ?, recorded"), first
    for to in ("markdown", "html"):
        out = tmp_path / f"report.{to}"
        done, _ = run("export", str(path), "--to", to, "--out", str(out))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert "stdio: ?" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("argv", [None, "python -m demo", {"a": 1}, [1, "x", None]])
def test_show_and_export_take_a_capture_whose_argv_has_any_other_shape(tmp_path, argv):
    path = capture_with_argv(tmp_path, argv)
    for args in (["show", str(path)], ["export", str(path), "--to", "markdown"], ["export", str(path), "--to", "html"]):
        done, _ = run(*args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
    if isinstance(argv, (str, list)):
        assert ("python -m demo" if isinstance(argv, str) else '1 x null') in done.stdout


@pytest.mark.report("faults", "a capture whose argv is 5 or null", surface="GUI", group="hostile",
                    advice="Nothing to fix: the capture is shown; only its command line is unknown.")
def test_the_window_opens_a_capture_whose_argv_is_null(qtbot, qloop, tmp_path, report):
    path = capture_with_argv(tmp_path, None)
    with open_test_window(qloop, tmp_path) as win:  # its tabs closed afterwards: the capture file too
        started = time.monotonic()
        tab = win.open_capture(path)
        assert tab is not None
        qtbot.waitUntil(lambda: not tab.loading, timeout=30_000)
        status = tab.status.text()
        report.saw(status.replace(str(tmp_path), "…"), seconds=time.monotonic() - started)
        assert status.startswith("opened read-only:") and "events" in status, status
        assert tab.model.rowCount() > 0


# -- files nested about a thousand levels deep --------------------------------------------------------------


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


@pytest.mark.report("faults", "a --config file nested 5,000 levels deep", surface="CLI", group="hostile",
                    advice="Give --config a client's MCP config file; this one cannot be a real one.")
def test_a_config_nested_too_deep_is_a_sentence(tmp_path, report):
    config = tmp_path / "deep.json"
    config.write_text('{"mcpServers": {"s": {"command": "python", "env": ' + nested(5000) + "}}}", encoding="utf-8")
    done, seconds = run("tools", "--config", str(config))
    sentence = sentence_of(done)
    report.saw(sentence.replace(str(tmp_path), "…"), seconds=seconds)
    assert done.returncode == EXIT_BAD_INPUT
    assert sentence == (f"mcp-inspector: {config} is nested too deep to read (JSON deeper than about a thousand "
                        "levels).")


def test_wrap_of_a_config_nested_too_deep_is_a_sentence_and_the_file_is_untouched(tmp_path):
    config = tmp_path / "claude_desktop_config.json"
    text = '{"mcpServers": {"s": {"command": "python", "args": ["x"]}}, "extra": ' + nested(500) + "}"
    config.write_text(text, encoding="utf-8")
    for command in ("wrap", "unwrap"):
        done, _ = run(command, str(config), "--all") if command == "wrap" else run(command, str(config))
        assert sentence_of(done) == (f"mcp-inspector {command}: {config} is nested too deep to read (deeper than "
                                     "200 levels).")
        assert config.read_text(encoding="utf-8") == text


@pytest.mark.report("faults", "an MCP Inspector history nested 990 levels deep", surface="CLI", group="hostile",
                    advice="Import the history as the MCP Inspector saved it; this one cannot be read.")
def test_import_of_a_history_nested_too_deep_is_a_sentence(tmp_path, report):
    # the official inspector keeps each request as a JSON string: read on its own, inside the history
    request = '{"method": "tools/call", "params": {"name": "x", "arguments": ' + nested(990) + "}}"
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"request": request, "response": "{}"}]), encoding="utf-8")
    done, seconds = run("import", str(history), "--out", str(tmp_path / "imported.jsonl"))
    sentence = sentence_of(done)
    report.saw(sentence.replace(str(tmp_path), "…"), seconds=seconds)
    assert done.returncode != 0
    assert sentence == f"mcp-inspector: {history}: history entry 1 is nested too deep to read"
    assert not (tmp_path / "imported.jsonl").exists()


def test_import_of_a_file_nested_too_deep_says_so_rather_than_that_it_is_not_json(tmp_path):
    history = tmp_path / "history.json"
    history.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    done, _ = run("import", str(history), "--out", str(tmp_path / "imported.jsonl"))
    assert sentence_of(done) == f"mcp-inspector: {history} cannot be imported: its JSON is nested too deep to read"


# -- a grandchild that holds the server's stdout -----------------------------------------------------------------


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Path]:
    """The pid file of stdio_hold.py's grandchildren, ended at teardown (it is out of reach of the inspector's
    group kill on purpose)."""
    pid_file = tmp_path / "holder.pid"
    yield pid_file
    for pid in pid_file.read_text().split() if pid_file.exists() else []:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def run_cold(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``python -m inspector ARGS`` started afresh, not forked from the warm test interpreter: what goes wrong
    here happens as the interpreter shuts down (the warm CLI's children leave with os._exit, which hides it)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "inspector", *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, cwd=REPO, env=cli_env(), timeout=CLI_BOUND)
    return done, time.monotonic() - started


@pytest.mark.report("faults", "a server whose grandchild holds its stdout after it is gone", surface="CLI",
                    group="hostile", advice="End the server's leftover process: it holds the pipe open.")
def test_check_against_a_server_whose_grandchild_holds_stdout_ends_without_a_traceback(tmp_path, holder, report):
    done, seconds = run_cold("check", "--timeout", "5", "--", sys.executable, str(HOLD), str(holder))
    assert "Event loop is closed" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    summary = [line for line in done.stdout.splitlines() if "passed" in line][-1]
    report.saw(summary, seconds=seconds)
    assert done.stderr.strip() == "", done.stderr


def test_record_against_a_server_whose_grandchild_holds_stdout_ends_without_a_traceback(tmp_path, holder):
    done, _ = run_cold("record", "--timeout", "5", "--out", str(tmp_path / "r.jsonl"), "--", sys.executable,
                       str(HOLD), str(holder))
    assert "Event loop is closed" not in done.stderr and "Traceback" not in done.stderr, done.stderr
