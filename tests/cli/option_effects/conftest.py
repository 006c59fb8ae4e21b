"""Fixtures of the option-to-effect tests: the servers (started once per test process and shared by its tests,
each test reading only its own part of their logs) and the capture the replay tests replay."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from option_effects_support import (
    HttpServer,
    inspector,
    oauth_server,
    probe,
    probe_http_server,
    write_messages,
)
from tls_support import Certificate, https_server, make_certificate


@pytest.fixture(autouse=True)
def own_captures_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A default capture (tap without --capture, replay without --out) never lands in another test's folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))


@pytest.fixture(scope="session")
def http_probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """The HTTP probe server (servers/probe_http_server.py): a test's requests are those under its own tag."""
    with probe_http_server(tmp_path_factory.mktemp("http-probe")) as server:
        yield server


@pytest.fixture(scope="session")
def oauth_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, HttpServer]]:
    """The protected test server of tests/auth in the three ways a client gets its client id: ``dcr``
    (dynamic registration), ``pre`` (a pre-registered client that authenticates with its secret,
    client_secret_basic) and ``cimd`` (Client ID Metadata Documents)."""
    base = tmp_path_factory.mktemp("oauth")
    with oauth_server(base / "dcr", "--registration", "dcr") as dcr, \
            oauth_server(base / "pre", "--registration", "pre", "--token-auth", "client_secret_basic") as pre, \
            oauth_server(base / "cimd", "--registration", "cimd") as cimd:
        yield {"dcr": dcr, "pre": pre, "cimd": cimd}


@pytest.fixture(scope="session")
def https_self_signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Certificate]]:
    """An https MCP server (tests/http/servers/tls_http_server.py) whose certificate, made for the run, is
    self-signed: refused unless trusted with --ca-file, or not verified at all with --insecure."""
    folder = tmp_path_factory.mktemp("https")
    certificate = make_certificate(folder / "cert")
    with https_server(folder, certificate) as port:
        yield port, certificate


@pytest.fixture(scope="session")
def replay_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A capture of the stdio probe server: the legacy handshake, tools/list and ping."""
    folder = tmp_path_factory.mktemp("replay-source")
    out = folder / "source.jsonl"
    send = write_messages(folder / "send.jsonl", [{"method": "tools/list"}, {"method": "ping"}])
    done, _ = inspector("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", "--",
                        *probe(folder / "server.log"))
    assert done.returncode == 0, done.stderr
    return out
