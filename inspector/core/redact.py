"""Secrets out of what we save: environment values, HTTP headers, URL credentials and secret-looking flags.

Redaction is on by default for every capture (``--no-redact`` keeps secrets). Wire messages themselves are
kept as they are: they are what the user came to see, and we cannot know which strings in them are secret.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"

#: Names of variables, headers, flags and query parameters whose values are treated as secrets.
SECRET_NAME = re.compile(
    r"(?i)(token|secret|passw|pwd|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credential|auth|cookie"
    r"|signature|bearer|(^|[-_])key$|(^|[-_])pat$)"
)
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact_env(env: dict[str, str]) -> dict[str, str]:
    """Copy of ``env`` with the values of secret-looking names replaced."""
    return {k: (REDACTED if is_secret_name(k) and v else v) for k, v in env.items()}


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    return {
        k: (REDACTED if (k.lower() in SECRET_HEADERS or is_secret_name(k)) else v) for k, v in headers.items()
    }


def redact_url(url: str) -> str:
    """Remove ``user:password@`` and the values of secret-looking query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = REDACTED + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_name(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if is_secret_name(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_argv(argv: list[str]) -> list[str]:
    """Redact the values of secret-looking flags: ``--token X``, ``--api-key=X``, and URLs with credentials."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        if arg.startswith("-") and "=" in arg:
            flag, _ = arg.split("=", 1)
            out.append(flag + "=" + REDACTED if is_secret_name(flag.lstrip("-")) else arg)
            continue
        if arg.startswith("-") and is_secret_name(arg.lstrip("-")):
            hide_next = True
        out.append(redact_url(arg) if "://" in arg else arg)
    return out
