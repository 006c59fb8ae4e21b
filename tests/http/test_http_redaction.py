"""Secrets given to ``record --url`` never reach the capture file, unless ``--no-redact`` asks to keep them.

A secret can be given four ways: ``--bearer TOKEN``, ``--bearer-env VAR``, ``-H 'Authorization: Bearer X'``
(or another secret header), and credentials in the URL (``http://user:password@host/``, which httpx sends
as HTTP Basic). Each test checks the raw bytes of the capture, wherever in it a secret could hide (headers,
URLs, notes, error sentences, findings).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from http_support import ServerProcess, free_port, header, http_events
from integration.integration_support import Recorded, load_capture

pytestmark = [pytest.mark.integration]

USER = "alice"
SCRIPT = [{"method": "tools/list"}]
ENV_VAR = "MCP_INSPECTOR_TEST_BEARER"


@dataclass
class Secret:
    """One way of giving a secret: the options to pass, and the byte strings that must not be saved."""

    name: str
    value: str
    in_url: bool = False

    def options(self) -> list[str]:
        if self.name == "bearer":
            return ["--bearer", self.value]
        if self.name == "bearer-env":
            return ["--bearer-env", ENV_VAR]
        if self.name == "authorization-header":
            return ["-H", f"Authorization: Bearer {self.value}"]
        if self.name == "api-key-header":
            return ["-H", f"X-Api-Key: {self.value}"]
        return []

    def url(self, server: ServerProcess, path: str) -> str:
        url = server.url(path)
        return url.replace("http://", f"http://{USER}:{self.value}@") if self.in_url else url

    def forms(self) -> list[bytes]:
        """The secret as it could appear in the file: as given, and as HTTP Basic credentials."""
        forms = [self.value.encode()]
        if self.in_url:
            forms.append(base64.b64encode(f"{USER}:{self.value}".encode()))
        return forms


HEADER_SECRETS = [
    Secret("bearer", "bearer-secret-7f3a91"),
    Secret("bearer-env", "env-secret-52c0de"),
    Secret("authorization-header", "header-secret-9b17aa"),
    Secret("api-key-header", "api-key-secret-0e44f2"),
]
URL_SECRET = Secret("url-credentials", "url-secret-c3d2e1", in_url=True)
ALL_SECRETS = [*HEADER_SECRETS, URL_SECRET]


def ids(secrets: list[Secret]) -> list[str]:
    return [s.name for s in secrets]


@pytest.fixture(autouse=True)
def bearer_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variable ``--bearer-env`` names, in the environment the CLI inherits."""
    env_secret = next(s for s in HEADER_SECRETS if s.name == "bearer-env")
    monkeypatch.setenv(ENV_VAR, env_secret.value)


def leaked(run: Recorded, secret: Secret) -> list[str]:
    """The lines of the capture file that hold the secret, in any of its forms."""
    data = run.out.read_bytes()
    return [line.decode("utf-8", "replace")[:300] for line in data.splitlines()
            if any(form in line for form in secret.forms())]


def authorization_sent(run: Recorded) -> list[str]:
    return [header(e.data["request_headers"], "authorization") or header(e.data["request_headers"], "x-api-key") or ""
            for e in http_events(load_capture(run.out))]


# -- redacted by default ----------------------------------------------------------------------------------


@pytest.mark.parametrize("secret", ALL_SECRETS, ids=ids(ALL_SECRETS))
def test_a_secret_never_appears_in_the_capture_of_a_streamable_http_session(
        secret: Secret, record: Callable[..., Recorded], sdk_streamable: ServerProcess) -> None:
    run = record(secret.url(sdk_streamable, "/mcp"), *secret.options(), "--idle", "0", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    assert leaked(run, secret) == []
    sent = authorization_sent(run)
    assert sent and all(value == "[redacted]" for value in sent), sent  # sent on every request, saved as redacted
    target = load_capture(run.out).header["target"]
    assert target["redacted"] is True
    assert f"{USER}:" not in target["url"]


@pytest.mark.parametrize("secret", HEADER_SECRETS, ids=ids(HEADER_SECRETS))
def test_a_secret_header_never_appears_in_the_capture_of_an_http_sse_session(
        secret: Secret, record: Callable[..., Recorded], sdk_sse: ServerProcess) -> None:
    run = record(sdk_sse.url("/sse"), "--transport", "sse", *secret.options(), "--idle", "0", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    assert leaked(run, secret) == []
    sent = authorization_sent(run)
    assert {e.data["method"] for e in http_events(load_capture(run.out))} == {"GET", "POST"}
    assert all(value == "[redacted]" for value in sent), sent  # the event stream's GET and every POST


# -- kept with --no-redact --------------------------------------------------------------------------------


@pytest.mark.parametrize("secret", ALL_SECRETS, ids=ids(ALL_SECRETS))
def test_no_redact_keeps_the_secret_in_the_capture(secret: Secret, record: Callable[..., Recorded],
                                                   sdk_streamable: ServerProcess) -> None:
    run = record(secret.url(sdk_streamable, "/mcp"), *secret.options(), "--no-redact", "--idle", "0", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    assert leaked(run, secret), "the secret should be kept with --no-redact"
    capture = load_capture(run.out)
    assert capture.header["target"]["redacted"] is False
    if secret.in_url:
        assert all(e.data["url"].startswith(f"http://{USER}:{secret.value}@") for e in http_events(capture))
        expected = "Basic " + base64.b64encode(f"{USER}:{secret.value}".encode()).decode()
    elif secret.name == "api-key-header":
        expected = secret.value
    else:
        expected = f"Bearer {secret.value}"
    assert set(authorization_sent(run)) == {expected}


# -- URL credentials in the sentences and events that quote a URL -----------------------------------------


@pytest.mark.parametrize("transport", ["sse", "auto"])
def test_url_credentials_never_appear_in_the_capture_of_an_http_sse_session(
        transport: str, record: Callable[..., Recorded], sdk_sse: ServerProcess) -> None:
    run = record(URL_SECRET.url(sdk_sse, "/sse"), "--transport", transport, "--idle", "0", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    assert leaked(run, URL_SECRET) == []


def test_url_credentials_never_appear_in_the_finding_of_a_redirect(record: Callable[..., Recorded],
                                                                   sdk_streamable: ServerProcess) -> None:
    run = record(URL_SECRET.url(sdk_streamable, "/mcp/"), "--idle", "0", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    assert leaked(run, URL_SECRET) == []


@pytest.mark.parametrize("transport", ["auto", "streamable-http", "sse"])
def test_url_credentials_never_appear_in_the_capture_when_the_connection_fails(
        transport: str, record: Callable[..., Recorded]) -> None:
    url = f"http://{USER}:{URL_SECRET.value}@127.0.0.1:{free_port()}/mcp"
    run = record(url, "--transport", transport, send=SCRIPT)
    assert run.returncode == 1, run.explain()
    assert leaked(run, URL_SECRET) == []
