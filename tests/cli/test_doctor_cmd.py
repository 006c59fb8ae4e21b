"""``mcp-inspector doctor`` as a user runs it (a real process each time), on the cases it must tell apart: a
closed port, a self-signed https server, a wrong path, a missing command, a command that dies with an
ImportError, a healthy server, and a healthy server with a banner before its first message. Text and JSON, the
exit status, and the ``--ca-file`` and ``--insecure`` options."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import cli
from tls_support import Certificate, closed_port, https_server, make_certificate, probe_http_server

from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_STEP_FAILED

# the servers of this module start once; every test runs the CLI end to end against them, so CI's second step
# runs them and the quick suite does not (issue 39: it stays under two minutes as the suite grows)
pytestmark = [pytest.mark.xdist_group("doctor-cli"), pytest.mark.integration]

DEMO = [sys.executable, "-m", "inspector.demo"]
BANNER = "Weather server v1.2 starting on stdio"


@pytest.fixture(scope="module")
def https(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Certificate]]:
    folder = tmp_path_factory.mktemp("https")
    certificate = make_certificate(folder / "cert")
    with https_server(folder, certificate) as port:
        yield port, certificate


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with probe_http_server(tmp_path_factory.mktemp("probe")) as port:
        yield port


def doctor(*args: str):
    return cli("doctor", *args, timeout=60)


def lines_of(stdout: str) -> dict[str, str]:
    """``{step: "status detail"}`` of the text form (its step lines, not the fix lines under them)."""
    found = {}
    for line in stdout.splitlines()[1:-1]:
        if line.startswith(" "):
            continue
        status, step, detail = line.split(None, 2) if len(line.split(None, 2)) == 3 else (*line.split(None, 1), "")
        found[step] = f"{status} {detail}"
    return found


def first_failure(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


def test_a_closed_port_names_connect(tmp_path):
    port = closed_port()
    done = doctor("--url", f"http://127.0.0.1:{port}/mcp")
    assert done.returncode == EXIT_STEP_FAILED, done.stderr
    steps = lines_of(done.stdout)
    assert steps["resolve"].startswith("passed")
    assert steps["connect"] == f"failed connection refused: nothing is listening on 127.0.0.1:{port}"
    assert steps["tls"] == "skipped not tried: the connect step failed"
    assert "fix: Start the server, or check the port in the URL" in done.stdout
    assert first_failure(done.stdout) == "the first failing step is connect: fix it first"


def test_a_self_signed_https_server_names_tls_and_ca_file_or_insecure_get_through(https):
    port, certificate = https
    url = f"https://127.0.0.1:{port}/mcp"
    done = doctor("--url", url)
    assert done.returncode == EXIT_STEP_FAILED
    assert lines_of(done.stdout)["tls"].startswith("failed the server's certificate CN=doctor test server (self-signed")
    assert "--ca-file FILE" in done.stdout and "--insecure" in done.stdout
    assert first_failure(done.stdout) == "the first failing step is tls: fix it first"
    trusted = doctor("--url", url, "--ca-file", str(certificate.cert))
    assert trusted.returncode == EXIT_OK, trusted.stdout
    unverified = doctor("--url", url, "--insecure")
    assert unverified.returncode == EXIT_OK, unverified.stdout
    assert lines_of(unverified.stdout)["tls"].startswith("warning not verified (--insecure)")
    # --insecure says so on stderr, once
    assert unverified.stderr.count("TLS certificates are not verified") == 1, unverified.stderr


def test_a_wrong_path_names_http(probe):
    done = doctor("--url", f"http://127.0.0.1:{probe}/doctor-cli/api")
    assert done.returncode == EXIT_STEP_FAILED
    assert lines_of(done.stdout)["http"].startswith("failed nothing at /doctor-cli/api: POST /doctor-cli/api -> 404")
    assert f"fix: Use http://127.0.0.1:{probe}/mcp: an MCP server answers there." in done.stdout
    assert first_failure(done.stdout) == "the first failing step is http: fix it first"


def test_a_missing_command_names_command():
    done = doctor("--", "mcp-inspector-no-such-server-xyz")
    assert done.returncode == EXIT_STEP_FAILED
    assert lines_of(done.stdout)["command"].startswith("failed command not found: mcp-inspector-no-such-server-xyz")
    assert first_failure(done.stdout) == "the first failing step is command: fix it first"


def test_a_command_that_dies_with_an_import_error_names_start_and_quotes_it():
    done = doctor("--", sys.executable, "-c", "import weather_sdk_missing")
    assert done.returncode == EXIT_STEP_FAILED
    assert lines_of(done.stdout)["start"].startswith("failed the server exited with code 1")
    assert "ModuleNotFoundError: No module named 'weather_sdk_missing'" in done.stdout
    # the quoted traceback keeps its own indentation under the detail's column
    column = "\n" + " " * 20
    assert f'{column}Traceback (most recent call last):{column}  File "<string>", line 1' in done.stdout
    assert first_failure(done.stdout) == "the first failing step is start: fix it first"


def test_a_healthy_server_passes_over_stdio_and_over_http(probe):
    for target in (["--", *DEMO], ["--url", f"http://127.0.0.1:{probe}/doctor-cli/mcp"]):
        done = doctor(*target)
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        statuses = {step: line.split()[0] for step, line in lines_of(done.stdout).items()}
        assert set(statuses.values()) <= {"passed", "skipped"}, done.stdout
        assert statuses["handshake"] == "passed"
        assert first_failure(done.stdout) == "no step failed: the connection works"


def test_a_banner_before_a_healthy_server_is_only_a_warning():
    done = doctor("--", sys.executable, "-c", f"print({BANNER!r}, flush=True); import runpy; "
                                             "runpy.run_module('inspector.demo', run_name='__main__')")
    assert done.returncode == EXIT_OK, done.stdout
    steps = lines_of(done.stdout)
    assert steps["stdout"] == f"warning the server wrote 1 line on stdout before its first message, the first: " \
                              f"'{BANNER}'"
    assert steps["handshake"].startswith("passed")
    assert first_failure(done.stdout) == "no step failed; 1 warning (stdout)"


def test_json_gives_every_step_with_status_detail_and_fix():
    done = doctor("--format", "json", "--url", f"http://127.0.0.1:{closed_port()}/mcp")
    assert done.returncode == EXIT_STEP_FAILED
    report = json.loads(done.stdout)
    assert [s["step"] for s in report["steps"]] == ["resolve", "connect", "tls", "http", "transport", "auth",
                                                    "handshake"]
    assert all(set(s) == {"step", "status", "detail", "fix"} for s in report["steps"])
    assert [s["status"] for s in report["steps"]] == ["passed", "failed", *["skipped"] * 5]
    assert report["steps"][1]["fix"].startswith("Start the server")


def test_an_unusable_ca_file_is_one_sentence_and_exit_2(tmp_path: Path):
    empty = tmp_path / "empty.pem"
    empty.write_text("no certificate here\n", encoding="utf-8")
    for ca_file, sentence in ((str(tmp_path / "missing.pem"), "no such file"),
                              (str(empty), "holds no PEM certificate")):
        done = doctor("--url", "https://127.0.0.1:1/mcp", "--ca-file", ca_file)
        assert done.returncode == EXIT_BAD_INPUT
        assert done.stderr.startswith(f"mcp-inspector: --ca-file {ca_file}") and sentence in done.stderr
        assert "Traceback" not in done.stderr
    both = doctor("--url", "https://127.0.0.1:1/mcp", "--ca-file", str(empty), "--insecure")
    assert both.returncode == EXIT_BAD_INPUT and "not both" in both.stderr
    stdio = doctor("--insecure", "--", *DEMO)
    assert stdio.returncode == EXIT_BAD_INPUT and "not for a command run over stdio" in stdio.stderr
