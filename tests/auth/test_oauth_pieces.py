"""The small pieces of the OAuth flow: challenges, PKCE, discovery URLs, redaction of OAuth secrets."""

from __future__ import annotations

import re

import pytest

from inspector.core.auth import discovery
from inspector.core.auth.challenge import parse_challenge
from inspector.core.auth.pkce import challenge_of, make_verifier
from inspector.core.redaction import redact_headers, redact_text, redact_url


def test_the_bearer_challenge_is_read_among_others_with_quoted_values() -> None:
    challenge = parse_challenge('Basic realm="x", Bearer error="insufficient_scope", scope="a b", '
                                'resource_metadata="https://h/.well-known/oauth-protected-resource"')
    assert challenge.error == "insufficient_scope" and challenge.scope == "a b"
    assert challenge.resource_metadata == "https://h/.well-known/oauth-protected-resource"
    assert parse_challenge("").scheme == "" and parse_challenge("Bearer").scope is None


def test_pkce_s256_gives_rfc_7636s_own_example_challenge() -> None:
    # RFC 7636 Appendix B: the verifier and the S256 challenge the RFC computes from it
    assert challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_a_pkce_verifier_is_43_to_128_unreserved_characters_and_new_each_time() -> None:
    verifier = make_verifier()
    assert 43 <= len(verifier) <= 128 and re.fullmatch(r"[A-Za-z0-9._~-]+", verifier)
    assert make_verifier() != verifier


def test_discovery_urls_follow_the_spec_order() -> None:
    assert discovery.prm_candidates("https://h/public/mcp") == [
        "https://h/.well-known/oauth-protected-resource/public/mcp", "https://h/.well-known/oauth-protected-resource"]
    assert discovery.prm_candidates("https://h") == ["https://h/.well-known/oauth-protected-resource"]
    assert [u for u, _ in discovery.as_metadata_candidates("https://a/t1")] == [
        "https://a/.well-known/oauth-authorization-server/t1", "https://a/.well-known/openid-configuration/t1",
        "https://a/t1/.well-known/openid-configuration"]
    assert not discovery.resource_covers("https://evil.example.com/mcp", "http://127.0.0.1:5/mcp")
    assert discovery.resource_covers("http://127.0.0.1:5", "http://127.0.0.1:5/mcp")


def test_codes_states_and_verifiers_are_redacted_in_urls_locations_and_text() -> None:
    assert "abc" not in redact_url("http://127.0.0.1/callback?code=abc&state=abc2&iss=x")
    assert "iss=x" in redact_url("http://127.0.0.1/callback?code=abc&iss=x")
    assert "abc" not in redact_headers({"Location": "http://127.0.0.1/cb?code=abc"})["Location"]
    assert redact_text("Redirecting to http://h/cb?code=abc&state=def") == \
        "Redirecting to http://h/cb?code=[redacted]&state=[redacted]"


def test_the_credentials_of_the_grants_without_a_person_are_redacted_in_headers_urls_text_and_arguments() -> None:
    from inspector.core.redaction import is_secret_name, redact_argv

    assert redact_headers({"DPoP": "eyJ.proof.sig", "DPoP-Nonce": "n-1"}) == {"DPoP": "[redacted]",
                                                                            "DPoP-Nonce": "n-1"}
    assert redact_text("client_assertion=eyJ.a.b&assertion=eyJ.c.d&subject_token=eyJ.e.f&actor_token=eyJ.g.h") == \
        "client_assertion=[redacted]&assertion=[redacted]&subject_token=[redacted]&actor_token=[redacted]"
    assert "eyJ" not in redact_url("https://as.example/token?assertion=eyJ.a.b&client_assertion=eyJ.c.d")
    argv = redact_argv(["mcp-inspector", "record", "--assertion", "eyJ.a.b", "--id-token", "eyJ.c.d",
                        "--client-secret=s3cret", "--assertion-file", "/run/token.jwt"])
    assert "eyJ" not in " ".join(argv) and "s3cret" not in " ".join(argv)
    assert "/run/token.jwt" in argv  # a path is not a secret
    assert all(is_secret_name(n) for n in ("assertion", "client_assertion", "subject_token", "id_token", "ID-TOKEN"))
    assert not is_secret_name("assertion_file")


def test_every_challenge_of_a_www_authenticate_value_is_read_in_order() -> None:
    from inspector.core.auth.challenge import parse_challenges

    both = parse_challenges('Bearer resource_metadata="https://h/m", DPoP error="use_dpop_nonce", algs="ES256 PS256"')
    assert [(c.scheme, c.params) for c in both] == [("Bearer", {"resource_metadata": "https://h/m"}),
                                                    ("DPoP", {"error": "use_dpop_nonce", "algs": "ES256 PS256"})]
    assert parse_challenge('DPoP algs="ES256", Bearer scope="a"').scope == "a"  # Bearer is still the one read


@pytest.mark.report("faults", "signing in again after Log out, on another loopback port",
                    surface="core", group="window")
def test_a_loopback_redirect_on_another_port_is_the_registered_one_and_nothing_else_is(report):
    from inspector.core.auth.flow import loopback_alike

    registered = "http://127.0.0.1:41000/callback"
    assert loopback_alike("http://127.0.0.1:52000/callback", registered)  # RFC 8252 section 7.3
    assert not loopback_alike("http://127.0.0.1:52000/other", registered)
    assert not loopback_alike("http://localhost:52000/callback", "http://localhost:41000/callback")
    assert not loopback_alike("https://127.0.0.1:52000/callback", "https://127.0.0.1:41000/callback")
    assert not loopback_alike("http://10.0.0.1:52000/callback", "http://10.0.0.1:41000/callback")
    report.saw("signing in again reuses the client registered before: a redirect on another loopback port is the "
               "registered one (RFC 8252 section 7.3)")
