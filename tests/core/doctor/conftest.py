"""The servers the doctor's tests diagnose, each started once per test process: https servers with a
certificate made for the test (self-signed, issued by a CA of the test's, for other names, expired), the plain
HTTP probe server (``/<tag>/mcp`` Streamable HTTP, ``/<tag>/sse`` HTTP+SSE, 404 elsewhere) and the OAuth test
server of tests/auth. All on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_python
from tls_support import Certificate, https_server, make_certificate, probe_http_server, serving

OAUTH_SERVER = Path(__file__).resolve().parents[2] / "auth" / "servers" / "oauth_server.py"


@pytest.fixture(autouse=True)
def tokens_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sign-in's tokens stay in this process, never in a person's keyring."""
    monkeypatch.setenv("MCP_INSPECTOR_TOKEN_STORE", "memory")


def _https(factory: pytest.TempPathFactory, name: str, **options: object) -> Iterator[tuple[int, Certificate]]:
    folder = factory.mktemp(name)
    certificate = make_certificate(folder / "cert", **options)
    with https_server(folder, certificate) as port:
        yield port, certificate


@pytest.fixture(scope="session")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Certificate]]:
    """An https MCP server whose certificate (for 127.0.0.1 and localhost) is self-signed."""
    yield from _https(tmp_path_factory, "self-signed")


@pytest.fixture(scope="session")
def private_ca(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Certificate]]:
    """An https MCP server whose certificate was issued by a CA of the test's own (``certificate.ca``)."""
    yield from _https(tmp_path_factory, "private-ca", with_ca=True)


@pytest.fixture(scope="session")
def other_names(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Certificate]]:
    """An https MCP server whose certificate names only mcp.example.test."""
    yield from _https(tmp_path_factory, "other-names", names=("mcp.example.test",))


@pytest.fixture(scope="session")
def expired(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Certificate]]:
    """An https MCP server whose certificate expired two days ago."""
    yield from _https(tmp_path_factory, "expired", expired=True)


@pytest.fixture(scope="session")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The plain-HTTP probe server's port."""
    with probe_http_server(tmp_path_factory.mktemp("probe")) as port:
        yield port


@pytest.fixture(scope="session")
def oauth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The OAuth test server (protected /mcp, its metadata, dynamic registration, an /authorize that approves at
    once)."""
    folder = tmp_path_factory.mktemp("oauth")
    with serving(warm_python.command(OAUTH_SERVER, str(folder / "port"), str(folder / "log.jsonl")),
                 folder / "port") as port:
        yield port
