"""The small pieces of the OAuth flow: challenges, PKCE, discovery URLs, redaction of OAuth secrets."""

from __future__ import annotations

import base64
import hashlib

from inspector.core.auth import discovery
from inspector.core.auth.challenge import parse_challenge
from inspector.core.auth.pkce import challenge_of, make_verifier
from inspector.core.capture.redact import redact_headers, redact_text, redact_url


def test_the_bearer_challenge_is_read_among_others_with_quoted_values() -> None:
    challenge = parse_challenge('Basic realm="x", Bearer error="insufficient_scope", scope="a b", '
                                'resource_metadata="https://h/.well-known/oauth-protected-resource"')
    assert challenge.error == "insufficient_scope" and challenge.scope == "a b"
    assert challenge.resource_metadata == "https://h/.well-known/oauth-protected-resource"
    assert parse_challenge("").scheme == "" and parse_challenge("Bearer").scope is None


def test_pkce_s256_is_base64url_of_the_sha256_of_a_verifier_of_43_to_128_characters() -> None:
    verifier = make_verifier()
    assert 43 <= len(verifier) <= 128
    expected = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert challenge_of(verifier) == expected


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
