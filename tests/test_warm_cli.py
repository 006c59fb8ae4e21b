"""tests/warm_cli.py runs ``python -m inspector`` forked from a warm interpreter: the same command run cold (a
fresh interpreter) and warm gives the same exit status, stdout and stderr, and a signal ends both alike."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import warm_cli
from helpers import DEMO, ROOT, wait_until

SILENT = [sys.executable, str(ROOT / "tests" / "integration" / "servers" / "silent_server.py")]


def both(*args: str, **kwargs) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    argv = [*warm_cli.INSPECTOR, *args]
    cold = subprocess.run(argv, capture_output=True, timeout=60, cwd=ROOT, **kwargs)
    warm = warm_cli.run(argv, capture_output=True, timeout=60, cwd=ROOT, **kwargs)
    return cold, warm


@pytest.mark.skipif(warm_cli.COLD, reason="MCP_INSPECTOR_TESTS_COLD_CLI=1 runs every command cold")
def test_the_command_runs_in_a_child_of_the_zygote_not_of_the_test():
    with warm_cli.Popen([*warm_cli.INSPECTOR, "--version"], stdout=subprocess.PIPE) as process:
        assert isinstance(process, warm_cli.WarmPopen)
        parent = int(Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        stdout, _ = process.communicate(timeout=30)
    assert parent in warm_cli.zygote_pids() and parent != os.getpid()
    assert process.returncode == 0 and stdout.startswith(b"mcp-inspector ")


@pytest.mark.parametrize("args", [["--version"], ["show", "/no/such/capture.jsonl"], ["record", "--no-such-flag"]])
def test_a_command_gives_the_same_status_stdout_and_stderr_warm_as_cold(args):
    cold, warm = both(*args)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_a_capture_written_to_stdout_is_the_same_warm_as_cold_but_for_its_times(tmp_path):
    cold, warm = both("record", "--out", "-", "--", *DEMO)
    assert cold.returncode == warm.returncode == 0
    kinds = [[line.split(b'"kind":')[1][:12] for line in run.stdout.splitlines()[1:]] for run in (cold, warm)]
    assert kinds[0] == kinds[1] and len(kinds[0]) > 3


def test_stdin_from_the_test_reaches_the_warm_command(tmp_path):
    send = b'{"jsonrpc":"2.0","id":7,"method":"tools/list"}\n'
    cold, warm = both("record", "--out", str(tmp_path / "c.jsonl"), "--send", "-", "--", *DEMO, input=send)
    assert warm.returncode == cold.returncode == 0, warm.stderr
    assert warm.stdout == cold.stdout and b"2 sent, 2 received" in warm.stdout, (warm.stdout, cold.stdout)


def start_as_a_user_has_it(start, argv: list[str], **kwargs) -> subprocess.Popen:
    """Start ``argv`` cold (``subprocess.Popen``) or warm, its SIGINT at the default a user's command has even
    where this test process ignores SIGINT (a run started in the background: children inherit it)."""
    if start is warm_cli.Popen:
        return warm_cli.Popen(argv, sigint_default=True, **kwargs)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        kwargs["preexec_fn"] = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
    return subprocess.Popen(argv, **kwargs)


@pytest.fixture(params=["foreground", "background"])
def test_run(request):
    """The test process as started in a terminal, or in the background (``pytest &``: SIGINT ignored)."""
    before = signal.getsignal(signal.SIGINT)
    if request.param == "background":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield request.param
    signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_a_waiting_command_alike_warm_and_cold_with_one_sentence(tmp_path, sig, test_run):
    codes = []
    for start in (subprocess.Popen, warm_cli.Popen):
        out = tmp_path / f"{start.__module__}-{sig}.jsonl"
        process = start_as_a_user_has_it(
            start, [*warm_cli.INSPECTOR, "record", "--out", str(out), "--timeout", "60", "--", *SILENT],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        # warm even when the test run ignores SIGINT (a preexec_fn would have made it cold, issue 25)
        assert warm_cli.COLD or isinstance(process, warm_cli.WarmPopen) == (start is warm_cli.Popen)
        try:
            # the capture holds the spawn once the command waits on the silent server: then the signal
            wait_until(lambda process=process, out=out: process.poll() is not None or (
                out.exists() and b'"spawned"' in out.read_bytes()), 30, "the command to start its server")
            assert process.poll() is None, process.communicate()
            process.send_signal(sig)
            try:
                _, stderr = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:  # say how the command held the signal (blocked, ignored, caught)
                masks = [line for line in Path(f"/proc/{process.pid}/status").read_text().splitlines()
                         if line.startswith(("State", "SigBlk", "SigIgn", "SigCgt", "SigPnd", "ShdPnd"))]
                pytest.fail(f"{start.__module__}: {sig!r} did not end the command in 30 s: {masks}")
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()  # its pipes closed too: an open one would warn in a later test
        codes.append((process.returncode, stderr.decode(errors="replace").replace(str(out), "CAPTURE")))
    assert codes[0] == codes[1]
    # interrupted during the server/discover probe, the command says its one sentence: no asyncio complaint
    assert "Traceback" not in codes[0][1] and "never retrieved" not in codes[0][1], codes[0][1]


def test_the_zygote_has_imported_every_module_a_command_imports_to_parse_its_arguments():
    """A module the zygote lacks is imported again by every child: about 7 ms of CPU for each of the
    suite's ~850 commands when the warm list fell behind the commands (issue 25)."""
    probe = ("import sys, warm_cli_zygote\n"
             "warm_cli_zygote.warm_up('cli')\n"
             "before = set(sys.modules)\n"
             "from inspector.cli.main import build_parser\n"
             "build_parser(only=['check', '--version'])\n"
             "print(sorted(set(sys.modules) - before))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "tests")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
