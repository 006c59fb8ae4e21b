"""Where metadata is looked for, in the spec's order, and what makes a document usable. Pure functions.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-discovery
(RFC 9728 section 3.1 for the protected resource, RFC 8414 section 3.1 and section 5 for the authorization
server) and, for 2025-03-26, #server-metadata-discovery of that revision.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

PRM_SUFFIX = "/.well-known/oauth-protected-resource"
OAUTH_SUFFIX = "/.well-known/oauth-authorization-server"
OIDC_SUFFIX = "/.well-known/openid-configuration"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def _path(url: str) -> str:
    return urlsplit(url).path.rstrip("/")


def prm_candidates(server_url: str) -> list[str]:
    """Well-known URLs of the protected resource metadata: path-aware first (when the MCP endpoint has a
    path), then the root (RFC 9728 section 3.1; the spec's order)."""
    path = _path(server_url)
    root = origin(server_url) + PRM_SUFFIX
    return [origin(server_url) + PRM_SUFFIX + path, root] if path else [root]


def as_metadata_candidates(issuer: str) -> list[tuple[str, str]]:
    """``(url, kind)`` for an issuer: for one with a path, OAuth with path insertion, OpenID Connect with
    path insertion, OpenID Connect path appending; else OAuth then OpenID Connect (``kind``: oauth, oidc)."""
    base = origin(issuer)
    path = _path(issuer)
    if path:
        return [(base + OAUTH_SUFFIX + path, "oauth"), (base + OIDC_SUFFIX + path, "oidc"),
                (base + path + OIDC_SUFFIX, "oidc")]
    return [(base + OAUTH_SUFFIX, "oauth"), (base + OIDC_SUFFIX, "oidc")]


def legacy_endpoints(server_url: str) -> dict[str, str]:
    """The 2025-03-26 default endpoints, at the authorization base URL (the server URL without its path)."""
    base = origin(server_url)
    return {"authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
            "registration_endpoint": base + "/register"}


def same_issuer(found: object, expected: str) -> bool:
    """RFC 8414 section 3.3: identical, except that a lone trailing slash after the host is no difference
    (both name the same well-known URL)."""
    if not isinstance(found, str):
        return False
    if found == expected:
        return True
    return _path(found) == "" and _path(expected) == "" and found.rstrip("/") == expected.rstrip("/")


def canonical_resource(url: str) -> str:
    """The server URL as an RFC 8707 resource: lowercase scheme and host, no fragment, no trailing slash."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/") if parts.path != "/" else ""
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether the metadata's ``resource`` names this server: same origin, and the server's path is the
    resource's path or under it (how the official SDKs read RFC 9728 section 3.3)."""
    a, b = urlsplit(canonical_resource(resource)), urlsplit(canonical_resource(server_url))
    if (a.scheme, a.netloc) != (b.scheme, b.netloc):
        return False
    prefix = a.path.rstrip("/")
    return b.path == prefix or b.path.startswith(prefix + "/") or not prefix
