"""The doctor's steps for a command run over stdio (inspector/core/doctor/command.py, handshake.py), each against
a real process: the demo server healthy, with a banner printed before it, a module that cannot be imported, a
program that is not there or cannot run, a script whose #! names a missing interpreter, a silent server."""

from __future__ import annotations

import asyncio
import stat
import sys
from pathlib import Path

import pytest

from inspector.core.connect.target import Target
from inspector.core.doctor.model import COMMAND_STEPS, FAILED, PASSED, SKIPPED, WARNING, Report
from inspector.core.doctor.runner import diagnose

DEMO = [sys.executable, "-m", "inspector.demo"]
BANNER = "Weather server v1.2 starting on stdio"
#: The demo server, with a banner printed on stdout first (as many servers' start-up logging does).
BANNERED = [sys.executable, "-c", f"print({BANNER!r}, flush=True); import runpy; "
                                  "runpy.run_module('inspector.demo', run_name='__main__')"]


def run(argv: list[str], *, timeout: float = 10.0, cwd: Path | None = None) -> Report:
    return asyncio.run(diagnose(Target(name="server", argv=argv, cwd=str(cwd) if cwd else None), timeout=timeout))


def statuses(report: Report) -> dict[str, str]:
    return {step.step: step.status for step in report.steps}


def step(report: Report, name: str):
    return next(s for s in report.steps if s.step == name)


def test_a_healthy_server_passes_every_step():
    report = run(DEMO)
    assert [s.step for s in report.steps] == list(COMMAND_STEPS)
    assert statuses(report) == dict.fromkeys(COMMAND_STEPS, PASSED), report.steps
    assert report.ok
    assert "answered a ping after the handshake" in step(report, "start").detail
    assert "mcp-inspector-demo" in step(report, "handshake").detail


def test_a_banner_before_a_healthy_server_is_only_a_warning_that_quotes_it():
    report = run(BANNERED)
    assert statuses(report) == {"command": PASSED, "start": PASSED, "stdout": WARNING, "handshake": PASSED}
    stdout = step(report, "stdout")
    assert f"1 line on stdout before its first message, the first: '{BANNER}'" in stdout.detail
    assert "stderr" in stdout.fix
    assert report.ok  # a warning is no failure


def test_lines_and_no_message_at_all_fail_the_stdout_step():
    report = run([sys.executable, "-c", "import sys, time; print('Listening on http://localhost:3000', flush=True); "
                                        "sys.stdin.read()"], timeout=2)
    assert statuses(report)["stdout"] == FAILED, report.steps
    assert "'Listening on http://localhost:3000'" in step(report, "stdout").detail
    assert statuses(report)["handshake"] == SKIPPED


def test_a_server_that_dies_with_an_import_error_fails_start_quoting_it():
    report = run([sys.executable, "-c", "import weather_sdk_missing"])
    start = step(report, "start")
    assert start.status == FAILED
    assert "exited with code 1" in start.detail
    assert "ModuleNotFoundError: No module named 'weather_sdk_missing'" in start.detail
    assert start.fix.startswith(f"Install the missing module for the Python that runs the server ({sys.executable})")
    assert statuses(report) == {"command": PASSED, "start": FAILED, "stdout": SKIPPED, "handshake": SKIPPED}
    assert step(report, "stdout").detail == "not tried: the start step failed"


def test_a_missing_command_fails_the_first_step_and_skips_the_rest():
    report = run(["mcp-inspector-no-such-server-xyz", "--stdio"])
    command = step(report, "command")
    assert command.status == FAILED
    assert command.detail.startswith("command not found: mcp-inspector-no-such-server-xyz")
    assert "full path" in command.fix
    assert statuses(report) == {"command": FAILED, "start": SKIPPED, "stdout": SKIPPED, "handshake": SKIPPED}
    assert report.first_failure is command


def test_a_file_that_is_not_executable_fails_the_command_step(tmp_path):
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\nexec true\n", encoding="utf-8")
    report = run([str(script)])
    assert step(report, "command").status == FAILED
    assert "is not executable" in step(report, "command").detail
    assert f"chmod +x {script}" in step(report, "command").fix


def test_a_script_whose_interpreter_is_missing_fails_the_command_step(tmp_path):
    script = tmp_path / "server"
    script.write_text("#!/usr/bin/env mcp-no-such-interpreter-9\nprint('hi')\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    report = run([str(script)])
    command = step(report, "command")
    assert command.status == FAILED
    assert "is run by mcp-no-such-interpreter-9" in command.detail and "not on PATH" in command.detail
    assert command.fix.startswith("Install mcp-no-such-interpreter-9")


def test_a_script_with_windows_line_ends_on_its_first_line_fails_the_command_step(tmp_path):
    script = tmp_path / "server"
    script.write_bytes(b"#!/bin/sh\r\nexec true\r\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    command = step(run([str(script)]), "command")
    assert command.status == FAILED
    assert "carriage return" in command.detail and "dos2unix" in command.fix


def test_an_interpreter_given_a_script_that_is_not_there_fails_the_command_step(tmp_path):
    command = step(run([sys.executable, "servr.py"], cwd=tmp_path), "command")
    assert command.status == FAILED
    assert command.detail == f"{sys.executable} is given the script servr.py, which is not in {tmp_path}"


def test_the_handshake_says_which_revision_the_server_chose_when_it_is_not_the_one_asked():
    negotiating = Path(__file__).resolve().parents[2] / "integration" / "servers" / "negotiating_server.py"
    report = run([sys.executable, str(negotiating), "--supported", "2025-06-18", "--reject", "0"])
    handshake = step(report, "handshake")
    assert handshake.status == PASSED
    assert handshake.detail == ("negotiating-test-server 1.0.0 answered initialize at protocol 2025-06-18 (the "
                                "server rejected protocol revision 2026-07-28 (error -32022) and supports 2025-06-18: "
                                "falling back to initialize, at a revision both speak)")


def test_a_server_that_says_nothing_fails_the_handshake_and_not_start():
    report = run([sys.executable, "-c", "import sys; sys.stdin.read()"], timeout=1)
    assert statuses(report) == {"command": PASSED, "start": PASSED, "stdout": PASSED, "handshake": FAILED}
    assert "no response to" in step(report, "handshake").detail
    assert "stdio mode" in step(report, "handshake").fix


# -- issue 39: wave three's hostile servers (tests/data/hostile) and typed errors --------------------------

MEGACRASH = [sys.executable, str(Path(__file__).resolve().parents[2] / "data" / "hostile" / "megacrash.py")]


@pytest.mark.report("faults", "doctor: a server that floods stdout with junk and exits (megacrash.py stdoutflood)",
                    surface="core", group="hostile",
                    advice="Read the line the stdout step quotes: the server wrote it instead of speaking MCP.")
def test_a_server_that_floods_stdout_and_exits_is_said_to_have_written_on_stdout_not_nothing(report):
    diagnosed = run([*MEGACRASH, "stdoutflood"])
    report.saw(f"start: {step(diagnosed, 'start').detail}")
    report = diagnosed
    start = step(report, "start")
    assert statuses(report) == {"command": PASSED, "start": FAILED, "stdout": FAILED, "handshake": SKIPPED}
    assert "exited with code 3" in start.detail
    assert "on stdout it wrote 800 lines that are no MCP message" in start.detail, start.detail
    assert "stdout" in start.fix and "without a word" not in start.fix
    stdout = step(report, "stdout")
    assert stdout.detail.startswith("the server wrote 800 lines on stdout and no MCP message, the first: 'junk ")
    assert "\x1b" not in stdout.detail and "\x07" not in stdout.detail


def test_the_command_steps_advice_follows_the_error_type_not_its_words(tmp_path):
    whole = run(["python -m some_server"])
    assert step(whole, "command").fix == "Give the program and each of its arguments as separate words."
    missing_folder = run(DEMO, cwd=tmp_path / "nowhere")
    assert "Create that folder" in step(missing_folder, "command").fix
    # a program whose name holds the words the advice was once picked by gets the advice for what it is
    (tmp_path / "working directory").mkdir()
    folder = step(run([str(tmp_path / "working directory")]), "command")
    assert folder.detail.endswith("working directory is a directory, not a program"), folder
    assert folder.fix.startswith("Make the file executable"), folder


def test_a_revision_the_server_refuses_gets_the_revision_advice_by_its_type():
    negotiating = Path(__file__).resolve().parents[2] / "integration" / "servers" / "negotiating_server.py"
    report = run([sys.executable, str(negotiating), "--supported", "2019-01-01", "--reject", "0"])
    handshake = step(report, "handshake")
    assert handshake.status == FAILED
    assert "2019-01-01" in handshake.detail
    assert handshake.fix.startswith("Ask for a revision the server supports"), handshake
