"""The doctor's steps for a URL (inspector/core/doctor/network.py, tls.py, http_steps.py, authorization.py), each
against a real server on 127.0.0.1: a closed port, https servers with certificates made for the test, the HTTP
probe server (a healthy endpoint, an HTTP+SSE one, a wrong path) and the OAuth test server."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest
from tls_support import TESTS, closed_port, resolver_stays_local, serving

from inspector.core.auth.model import OAuthOptions
from inspector.core.connect.target import Target
from inspector.core.doctor.model import FAILED, PASSED, SKIPPED, URL_STEPS, WARNING, Report, Step
from inspector.core.doctor.runner import diagnose

pytestmark = pytest.mark.xdist_group("doctor-servers")  # one worker starts the session's servers once


def run(url: str, *, timeout: float = 10.0, sign_in: bool = True, **target: object) -> Report:
    return asyncio.run(diagnose(Target(name=url, url=url, connect_timeout=5.0, **target), timeout=timeout,
                                sign_in=sign_in))


def statuses(report: Report) -> dict[str, str]:
    return {s.step: s.status for s in report.steps}


def step(report: Report, name: str) -> Step:
    return next(s for s in report.steps if s.step == name)


def skipped_after(report: Report, name: str) -> list[str]:
    """The steps after ``name``, which must all be skipped."""
    after = list(URL_STEPS)[list(URL_STEPS).index(name) + 1:]
    assert all(statuses(report)[s] == SKIPPED for s in after), report.steps
    return after


# -- resolve and connect -----------------------------------------------------------------------------------


def test_a_closed_port_fails_connect_naming_it():
    port = closed_port()
    report = run(f"http://127.0.0.1:{port}/mcp")
    assert [s.step for s in report.steps] == list(URL_STEPS)
    assert statuses(report)["resolve"] == PASSED
    connect = step(report, "connect")
    assert (connect.status, connect.detail) == (FAILED, f"connection refused: nothing is listening on 127.0.0.1:{port}")
    assert connect.fix.startswith("Start the server, or check the port in the URL")
    skipped_after(report, "connect")
    assert report.first_failure is connect


def test_localhost_resolves_to_its_loopback_address(probe):
    report = run(f"http://localhost:{probe}/doctor-localhost/mcp")
    assert step(report, "resolve").detail.startswith("localhost resolves to ")
    assert "127.0.0.1" in step(report, "resolve").detail
    assert report.ok, report.steps


def test_a_name_that_does_not_resolve_fails_resolve():
    reason = resolver_stays_local()
    if reason is not None:
        pytest.skip(reason)
    report = run("http://no-such-host.invalid:8000/mcp")
    resolve = step(report, "resolve")
    assert resolve.status == FAILED
    assert resolve.detail.startswith("the host name no-such-host.invalid cannot be resolved")
    skipped_after(report, "resolve")


# -- tls ---------------------------------------------------------------------------------------------------


def test_a_self_signed_certificate_fails_tls_with_how_to_trust_it(self_signed):
    port, _ = self_signed
    report = run(f"https://127.0.0.1:{port}/mcp")
    tls = step(report, "tls")
    assert tls.status == FAILED
    assert "CN=doctor test server (self-signed, for localhost, 127.0.0.1" in tls.detail
    assert "is self-signed, and this computer does not trust it" in tls.detail
    assert "--ca-file FILE" in tls.fix and "--insecure" in tls.fix
    skipped_after(report, "tls")


def test_ca_file_with_the_self_signed_certificate_makes_the_whole_connection_pass(self_signed):
    port, certificate = self_signed
    report = run(f"https://localhost:{port}/mcp", ca_file=str(certificate.cert))
    assert statuses(report) == {"resolve": PASSED, "connect": PASSED, "tls": PASSED, "http": PASSED,
                                "transport": PASSED, "auth": PASSED, "handshake": PASSED}, report.steps
    assert f"trusted by this computer's CAs and --ca-file {certificate.cert}" in step(report, "tls").detail


def test_insecure_makes_the_connection_work_and_tls_a_warning_that_still_says_why(self_signed):
    port, _ = self_signed
    report = run(f"https://127.0.0.1:{port}/mcp", insecure=True)
    tls = step(report, "tls")
    assert tls.status == WARNING
    assert tls.detail.startswith("not verified (--insecure): the server's certificate")
    assert "self-signed" in tls.detail and "--ca-file" in tls.fix
    assert statuses(report)["handshake"] == PASSED and report.ok


def test_a_certificate_of_a_ca_this_computer_does_not_know_fails_until_the_ca_is_given(private_ca):
    port, certificate = private_ca
    url = f"https://127.0.0.1:{port}/mcp"
    refused = step(run(url), "tls")
    assert refused.status == FAILED
    assert "issued by CN=doctor test CA, a CA this computer does not trust" in refused.detail
    assert run(url, ca_file=str(certificate.ca)).ok


def test_a_certificate_for_other_names_fails_tls_naming_them(other_names):
    port, certificate = other_names
    tls = step(run(f"https://127.0.0.1:{port}/mcp", ca_file=str(certificate.cert)), "tls")
    assert tls.status == FAILED
    assert "is not for 127.0.0.1: it names mcp.example.test" in tls.detail
    assert "mcp.example.test" in tls.fix


def test_an_expired_certificate_fails_tls_with_its_date(expired):
    port, certificate = expired
    tls = step(run(f"https://127.0.0.1:{port}/mcp", ca_file=str(certificate.cert)), "tls")
    assert tls.status == FAILED
    assert "expired on " in tls.detail and tls.fix.startswith("Renew the server's certificate")


@pytest.mark.report("faults", "doctor: an expired self-signed certificate, not trusted either", surface="core",
                    group="hostile", advice="Renew the server's certificate, then trust it with --ca-file.")
def test_an_expired_self_signed_certificate_is_said_to_have_expired_before_it_is_said_to_be_untrusted(expired,
                                                                                                      report):
    port, _certificate = expired
    tls = step(run(f"https://127.0.0.1:{port}/mcp"), "tls")
    assert tls.status == FAILED
    assert tls.detail.startswith("the server's certificate") and " expired on " in tls.detail, tls.detail
    assert tls.detail.index("expired on") < tls.detail.index("not trusted"), tls.detail
    assert tls.detail.endswith("; it is self-signed, so it is not trusted either")
    assert tls.fix.startswith("Renew the server's certificate") and "--ca-file" in tls.fix
    report.saw(tls.detail)


def test_https_to_a_plain_http_port_fails_tls(probe):
    report = run(f"https://127.0.0.1:{probe}/doctor-plain/mcp")
    tls = step(report, "tls")
    assert tls.status == FAILED
    assert "does not speak TLS on this port" in tls.detail and tls.fix.startswith("Use http://")


def test_http_to_an_https_port_fails_http_and_says_to_use_https(self_signed):
    port, _ = self_signed
    report = run(f"http://127.0.0.1:{port}/mcp", timeout=5)
    assert statuses(report)["tls"] == SKIPPED
    http = step(report, "http")
    assert http.status == FAILED
    assert "the port speaks TLS" in http.detail
    assert http.fix == f"Use https:// for 127.0.0.1:{port}."


# -- http, transport, auth, handshake ----------------------------------------------------------------------


def test_a_port_that_takes_the_connection_and_never_answers_fails_http_saying_so():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # the kernel completes the connections; nobody ever reads them
    try:
        port = listener.getsockname()[1]
        report = run(f"http://127.0.0.1:{port}/mcp", timeout=1)
    finally:
        listener.close()
    assert statuses(report)["connect"] == PASSED
    http = step(report, "http")
    assert http.status == FAILED
    assert http.detail.startswith("no HTTP answer: no response to "), http.detail
    skipped_after(report, "http")


MISBEHAVING = TESTS / "http" / "servers" / "misbehaving_http_server.py"


@pytest.mark.parametrize(("mode", "path", "status", "detail", "fix"), [
    ("redirect", "/mcp/", WARNING, "redirected (307) from http://127.0.0.1:{port}/mcp/ to http://127.0.0.1:{port}/mcp",
     "Use the URL the server redirects to"),
    ("checks-accept", "/strict", FAILED, "POST /strict -> 406 Not Acceptable (application/json)",
     "The server refuses the Accept header the spec has clients send"),
    ("html-500", "/mcp", FAILED, "POST /mcp -> 500 Internal Server Error (text/html)", "its own log says why"),
    ("static", "/", FAILED, "no MCP endpoint at /: POST / -> 501 Unsupported method ('POST') (text/html)",
     "Check the URL's path: MCP servers usually serve /mcp"),
])
def test_what_the_http_layer_answers_is_judged_by_the_http_step(tmp_path, mode, path, status, detail, fix):
    with serving([sys.executable, str(MISBEHAVING), mode, str(tmp_path / "port")], tmp_path / "port") as port:
        http = step(run(f"http://127.0.0.1:{port}{path}", timeout=5), "http")
    assert http.status == status, http
    assert detail.format(port=port) in http.detail
    assert fix in http.fix


def test_a_healthy_streamable_http_server_passes_every_step(probe):
    report = run(f"http://127.0.0.1:{probe}/doctor-healthy/mcp")
    assert statuses(report) == {"resolve": PASSED, "connect": PASSED, "tls": SKIPPED, "http": PASSED,
                                "transport": PASSED, "auth": PASSED, "handshake": PASSED}, report.steps
    assert step(report, "http").detail == "the server answered: POST /doctor-healthy/mcp -> 200 OK (application/json)"
    assert step(report, "transport").detail == "Streamable HTTP: the server answered with JSON; stateless (no " \
                                               "Mcp-Session-Id)"
    assert step(report, "handshake").detail == "probe-http 1 answered initialize at protocol 2025-11-25"


def test_a_wrong_path_fails_http_and_names_the_path_that_answers(probe):
    report = run(f"http://127.0.0.1:{probe}/doctor-wrong/api")
    http = step(report, "http")
    assert http.status == FAILED
    assert http.detail.startswith("nothing at /doctor-wrong/api: POST /doctor-wrong/api -> 404 Not Found")
    assert "GET /doctor-wrong/api -> 404 Not Found" in http.detail
    # the probe server answers MCP at /mcp (its "untagged" endpoint): the fix names it
    assert http.fix == f"Use http://127.0.0.1:{probe}/mcp: an MCP server answers there."
    skipped_after(report, "http")


def test_the_http_sse_fallback_works_and_is_a_transport_warning(probe):
    report = run(f"http://127.0.0.1:{probe}/doctor-legacy/sse")
    transport = step(report, "transport")
    assert transport.status == WARNING
    assert transport.detail.startswith("HTTP+SSE, the 2024-11-05 transport: mcp-inspector fell back to it")
    assert "HTTP 404" in transport.detail
    # the http step names the exchange that worked, not the refused POST before it
    assert step(report, "http").detail == "the server answered: GET /doctor-legacy/sse -> 200 OK (text/event-stream)"
    assert statuses(report)["handshake"] == PASSED and report.ok


def test_a_401_fails_auth_with_what_discovery_found(oauth):
    report = run(f"http://127.0.0.1:{oauth}/mcp")
    assert statuses(report)["http"] == PASSED
    assert statuses(report)["transport"] == SKIPPED
    auth = step(report, "auth")
    assert auth.status == FAILED
    assert auth.detail == (f"the server requires authorization (HTTP 401, a Bearer challenge for the scope mcp:read): "
                           f"its protected resource metadata names the authorization server http://127.0.0.1:{oauth} "
                           "(dynamic client registration offered)")
    assert auth.fix.startswith("Sign in with --oauth")
    assert statuses(report)["handshake"] == SKIPPED


def test_oauth_signs_in_and_passes_auth(oauth):
    report = run(f"http://127.0.0.1:{oauth}/mcp", oauth=OAuthOptions(authorize="follow"))
    assert step(report, "auth").detail == "the server asked for authorization (HTTP 401) and the OAuth flow got a " \
                                          "token"
    assert report.ok, report.steps


def test_without_signing_in_a_target_with_oauth_gets_an_auth_warning(oauth):
    report = run(f"http://127.0.0.1:{oauth}/mcp", oauth=OAuthOptions(authorize="follow"), sign_in=False)
    assert statuses(report)["auth"] == WARNING
    assert step(report, "handshake").detail == "not tried: the server lets no one in without a token"
    assert report.ok
