"""Secrets are redacted by default in every capture the inspector saves or exports (README: "Tokens,
``Authorization`` and ``Cookie`` headers and URL credentials are redacted in captures unless ``--no-redact``").

Each secret below is a unique string; after each run, the raw bytes of the capture (and of an exported copy)
are searched for every form of it (as given, and base64 in HTTP Basic credentials). Secrets are given the
ways users give them: a bearer token (``--bearer``), secret headers (``-H``), credentials in a URL, secret
flags and ``NAME=value`` arguments on a server's command line, and secret environment overrides.
tests/http/test_http_redaction.py covers every HTTP transport in depth; these rows cover every way a capture
is written: record (stdio and HTTP), tap, replay, and the window (live stdio and HTTP sessions, Save as).
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import warm_cli
from helpers import ROOT, cli, until, wait_until
from PySide6.QtWidgets import QFileDialog
from qt_loop import open_test_window

from inspector.core.capture import read_capture
from inspector.ui.session.live import READY, Target
from inspector.ui.session.tab import SessionTab

GOOD_HTTP_SERVER = ROOT / "tests" / "http" / "servers" / "misbehaving_http_server.py"
#: The demo server, started through a command line carrying secrets it ignores.
DEMO_WITH_ARGS = [sys.executable, "-c",
                  "import runpy, sys; sys.argv = ['demo']; runpy.run_module('inspector.demo', run_name='__main__')"]
SILENT_WITH_ARGS = [sys.executable, "-c", "import sys; sys.stdin.read()"]


class Secrets:
    """Unique secret strings, given the ways users give them."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.values: list[str] = []

    def new(self, name: str) -> str:
        value = f"sekret-{self.tag}-{name}-{os.urandom(4).hex()}"
        self.values.append(value)
        return value

    def argv(self) -> list[str]:
        """Secret flags and assignments on a server's command line."""
        return ["--token", self.new("flag"), f"--api-key={self.new('flag-eq')}", f"GITHUB_TOKEN={self.new('assign')}",
                f"Authorization: Bearer {self.new('header-arg')}", f"https://user:{self.new('url-arg')}@example.com/"]

    def env(self) -> dict[str, str]:
        return {"API_TOKEN": self.new("env"), "DATABASE_URL": f"postgres://app:{self.new('env-url')}@db/app"}

    def forms(self) -> list[bytes]:
        forms = [v.encode() for v in self.values]
        forms += [base64.b64encode(f"user:{v}".encode()) for v in self.values]  # HTTP Basic of URL credentials
        return forms

    def leaks(self, path: Path) -> list[str]:
        data = path.read_bytes()
        assert b"[redacted]" in data, f"{path.name}: nothing was redacted at all"
        return [line.decode("utf-8", "replace")[:200] for line in data.splitlines()
                if any(form in line for form in self.forms())]


class HttpServer:
    """tests/http's minimal well-behaved Streamable HTTP server ("good" mode), on an ephemeral loopback port."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        port_file = directory / "port"
        self.process = subprocess.Popen([sys.executable, str(GOOD_HTTP_SERVER), "good", str(port_file)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        wait_until(lambda: self.process.poll() is not None or port_file.exists(), 30, "the HTTP server's port")
        assert self.process.poll() is None, "the HTTP server did not start"
        self.port = int(port_file.read_text())

    def url(self, credentials: str | None = None) -> str:
        auth = f"user:{credentials}@" if credentials else ""
        return f"http://{auth}127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture
def http_server(tmp_path):
    server = HttpServer(tmp_path / "http-server")
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.report("security", "secrets are redacted by default in every capture the CLI writes (record stdio and "
                                "HTTP, tap, replay)", surface="CLI")
def test_secrets_are_redacted_by_default_in_the_captures_of_record_tap_and_replay(tmp_path, http_server, report):
    checked = []
    # record, stdio: secrets on the server's command line and in its environment overrides
    secrets = Secrets("record")
    out = tmp_path / "record.jsonl"
    env_options = [option for k, v in secrets.env().items() for option in ("--env", f"{k}={v}")]
    done = cli("record", "--out", str(out), "--handshake", "none", "--idle", "0", *env_options, "--",
               *SILENT_WITH_ARGS, *secrets.argv())
    assert out.exists(), done.stderr
    assert secrets.leaks(out) == []
    checked.append(f"record (stdio): {len(secrets.values)} secrets")
    # record --url: a bearer token, secret headers, credentials in the URL
    secrets = Secrets("http")
    out = tmp_path / "http.jsonl"
    done = cli("record", "--url", http_server.url(secrets.new("url")), "--bearer", secrets.new("bearer"),
               "-H", f"X-Api-Key: {secrets.new('api-key')}", "-H", f"Cookie: session={secrets.new('cookie')}",
               "--out", str(out), "--idle", "0")
    assert done.returncode == 0, done.stderr
    assert secrets.leaks(out) == []
    checked.append(f"record --url: {len(secrets.values)} secrets")
    # tap: secrets on the server's command line
    secrets = Secrets("tap")
    out = tmp_path / "tap.jsonl"
    tap = warm_cli.run([sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(out), "--",
                          *SILENT_WITH_ARGS, *secrets.argv()], input=b"", capture_output=True, timeout=60, cwd=ROOT)
    assert tap.returncode == 0, tap.stderr
    assert secrets.leaks(out) == []
    checked.append(f"tap: {len(secrets.values)} secrets")
    # replay against a server whose command line carries secrets
    secrets = Secrets("replay")
    out = tmp_path / "replay.jsonl"
    done = cli("replay", str(ROOT / "tests" / "data" / "sample-v1.jsonl"), "--out", str(out), "--timeout", "10",
               "--", *DEMO_WITH_ARGS, *secrets.argv())
    assert out.exists(), done.stderr
    assert secrets.leaks(out) == []
    checked.append(f"replay: {len(secrets.values)} secrets")
    report.saw("no secret in any form in the capture: " + "; ".join(checked))


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


@pytest.mark.report("security", "secrets are redacted by default in the window's captures and in Save as",
                    surface="GUI")
def test_secrets_are_redacted_by_default_in_the_windows_captures_and_their_exported_copies(
        window, qloop, tmp_path, http_server, monkeypatch, report):
    stdio, http = Secrets("gui-stdio"), Secrets("gui-http")
    targets: list[tuple[Target, Secrets]] = [
        (Target(name="stdio", argv=[*DEMO_WITH_ARGS, *stdio.argv()], env=stdio.env()), stdio),
        (Target(name="http", url=http_server.url(http.new("url")), transport="streamable-http",
                headers={"X-Api-Key": http.new("api-key"), "Authorization": f"Bearer {http.new('auth-header')}"},
                bearer=None), http),
    ]
    exported: dict[str, Any] = {}
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(exported["path"]), "Captures (*.jsonl)"))
    checked = []
    for target, secrets in targets:
        async def live(target: Target = target) -> SessionTab:
            tab = window.open_live(target)
            assert tab is not None
            await until(lambda: tab.live.state == READY, 30, f"the {target.name} handshake")
            return tab

        tab = qloop.run_until_complete(live())
        exported["path"] = tmp_path / f"exported-{target.name}.jsonl"
        window.files.save_as()  # while the session runs
        qloop.run_until_complete(tab.close())
        assert read_capture(tab.capture_path).header["target"]["redacted"] is True
        assert secrets.leaks(tab.capture_path) == []
        assert secrets.leaks(exported["path"]) == []
        checked.append(f"{target.name} session: {len(secrets.values)} secrets")
    report.saw("no secret in any form in the saved captures or their Save as copies: " + "; ".join(checked))
