"""An app's policy: each entry of _meta.ui.csp that names one origin is kept, anything that would loosen the
policy is dropped with its reason, the CSP header is the spec's, and the interceptor's rule matches it."""

from __future__ import annotations

import pytest

from inspector.core.apps.policy import (
    CONNECT,
    FRAME,
    RESOURCE,
    RESTRICTIVE_DEFAULT,
    parse_source,
    policy_of,
)


@pytest.mark.parametrize("entry, shown", [
    ("https://api.example.com", "https://api.example.com"),
    ("HTTPS://API.Example.com", "https://api.example.com"),
    ("wss://rt.example.com:8443", "wss://rt.example.com:8443"),
    ("https://*.example.com", "https://*.example.com"),
    ("https://cdn.example.com/lib/", "https://cdn.example.com/lib/"),
    ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
    ("http://[::1]:3000", "http://[::1]:3000"),
    ("https://example.com:*", "https://example.com:*"),
])
def test_an_entry_that_names_one_origin_is_kept_normalised(entry, shown):
    source, reason = parse_source(entry)
    assert reason is None and str(source) == shown


@pytest.mark.parametrize("entry, why", [
    ("*", "every origin"),
    ("https:", "every origin"),
    ("'unsafe-eval'", "quote"),
    ("https://api.example.com; script-src *", "semicolon"),
    ("https://a.example.com https://b.example.com", "space"),
    ("https://a.example.com,https://b.example.com", "comma"),
    ("api.example.com", "no scheme"),
    ("ftp://files.example.com", "scheme ftp"),
    ("javascript://x", "scheme javascript"),
    ("https://*", "wildcard"),
    ("https://a.*.example.com", "wildcard"),
    ("https://user@example.com", "credentials"),
    ("https://example.com/?q=1", "query"),
    ("https://example.com:99999", "not a port"),
    ("https://exa mple.com", "space"),
    ("https://bad_host!.com", "not a host name"),
    (42, "not a string"),
    ("", "empty"),
])
def test_an_entry_that_would_allow_more_than_one_origin_or_smuggle_a_directive_is_dropped(entry, why):
    source, reason = parse_source(entry)
    assert source is None and why in reason


def test_the_restrictive_default_applies_when_the_resource_declares_no_csp():
    policy = policy_of({})
    assert not policy.declared
    assert policy.csp() == RESTRICTIVE_DEFAULT
    assert "connect-src 'none'" in policy.csp() and "object-src 'none'" in policy.csp()
    assert "no _meta.ui.csp" in policy.refusal("https://api.example.com/x", CONNECT)


def test_the_header_is_the_specs_template_built_from_the_effective_lists_only():
    policy = policy_of({"csp": {"connectDomains": ["https://api.example.com", "*"],
                                "resourceDomains": ["https://cdn.example.com", "'unsafe-eval'"],
                                "frameDomains": ["https://www.youtube.com"],
                                "baseUriDomains": ["https://base.example.com"]}})
    header = policy.csp()
    directives = dict(part.split(" ", 1) for part in header.split("; "))
    assert directives["default-src"] == "'none'"
    assert directives["connect-src"] == "'self' https://api.example.com"
    assert directives["script-src"] == "'self' 'unsafe-inline' https://cdn.example.com"
    assert directives["img-src"] == "'self' data: https://cdn.example.com"
    assert directives["font-src"] == "'self' https://cdn.example.com"
    assert directives["frame-src"] == "https://www.youtube.com"
    assert directives["base-uri"] == "https://base.example.com"
    assert directives["object-src"] == "'none'" and directives["form-action"] == "'none'"
    assert "*" not in header.replace("'", "") and "unsafe-eval" not in header
    assert [(d.key, d.entry) for d in policy.dropped] == [("connectDomains", "*"), ("resourceDomains", "'unsafe-eval'")]


def test_an_empty_frame_and_base_list_means_none_and_self():
    header = policy_of({"csp": {}}).csp()
    assert "frame-src 'none'" in header and "base-uri 'self'" in header and "connect-src 'self'" in header


@pytest.mark.parametrize("url, use, allowed", [
    ("https://api.example.com/v1/x", CONNECT, True),
    ("https://api.example.com:443/v1", CONNECT, True),
    ("https://api.example.com:8443/v1", CONNECT, False),
    ("http://api.example.com/v1", CONNECT, False),  # https does not cover http
    ("wss://api.example.com/socket", CONNECT, False),  # nor wss (CSP Level 3 scheme matching)
    ("https://evil.example.net/", CONNECT, False),
    ("https://api.example.com/v1", RESOURCE, False),  # a connect origin is no resource origin
    ("https://img.cdn.example.com/a.png", RESOURCE, True),
    ("https://cdn.example.com/a.png", RESOURCE, False),  # *. is subdomains only
    ("https://fonts.example.org/lib/a.woff", RESOURCE, True),
    ("https://fonts.example.org/libx/a.woff", RESOURCE, False),  # a path ending in / is a prefix
    ("https://fonts.example.org/other.css", RESOURCE, True),  # an exact path
    ("https://fonts.example.org/other.css/x", RESOURCE, False),
    ("ws://rt.example.com/s", CONNECT, True),
    ("wss://rt.example.com/s", CONNECT, True),  # ws covers wss
    ("https://player.example.com/embed", FRAME, True),
    ("file:///etc/passwd", RESOURCE, False),
    ("https://api.example.com/x", "object", False),
])
def test_the_interceptors_rule_allows_exactly_what_the_lists_name(url, use, allowed):
    policy = policy_of({"csp": {"connectDomains": ["https://api.example.com", "ws://rt.example.com"],
                                "resourceDomains": ["https://*.cdn.example.com", "https://fonts.example.org/lib/",
                                                    "https://fonts.example.org/other.css"],
                                "frameDomains": ["https://player.example.com"]}})
    assert (policy.refusal(url, use) is None) is allowed


def test_permissions_declared_are_granted_to_ask_and_unknown_ones_dropped():
    policy = policy_of({"permissions": {"camera": {}, "clipboardWrite": {}, "telepathy": {}, "microphone": True}})
    assert policy.permissions == ("camera", "clipboardWrite")
    assert policy.allow_attribute() == "camera; clipboard-write"
    assert {(d.entry, d.reason) for d in policy.dropped} == {
        ("telepathy", "not a permission the extension defines"), ("microphone", "its value is not an object ({})")}


@pytest.mark.parametrize("ui", [None, "csp", {"csp": "https://x"}, {"csp": {"connectDomains": "https://x"}},
                                {"csp": {"connectDomains": [None, {}, ["https://x"]]}}])
def test_a_malformed_policy_grants_nothing(ui):
    policy = policy_of(ui)
    assert all(not sources for sources in policy.sources.values())
    assert policy.refusal("https://x/", CONNECT) is not None
