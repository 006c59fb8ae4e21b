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
    r"(?i)(token(?!izer)|secret|passw|(.[-_]|^db_?)pwd|api[-_]?key|apikey|access[-_]?key|private[-_]?key"
    r"|credential|auth(?!or)|cookie|signature|bearer|(^|[-_])key$|(^|[-_])pat$)"
)
#: Names that look secret to the pattern but are not.
NOT_SECRET = frozenset({"PWD", "OLDPWD"})
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_HEADER_ARG = re.compile(r"^([A-Za-z0-9-]+)\s*:\s*(.*)$", re.S)
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
                            "dpop"})  # RFC 9449: a DPoP proof, which a thief could replay within its lifetime
#: OAuth credentials whose names the pattern does not catch: RFC 7523 assertions (a JWT grant, a client
#: assertion), RFC 8693 subject and actor tokens (an ID token exchanged for an ID-JAG).
OAUTH_CREDENTIAL_NAMES = frozenset({"assertion", "client_assertion", "subject_token", "actor_token", "id_token"})
#: Query parameters of OAuth that carry secrets under names that do not say so (RFC 6749, RFC 7636): an
#: authorization code, a PKCE verifier, the state that binds a response to its request.
OAUTH_SECRET_PARAMS = frozenset({"code", "code_verifier", "state", "session_state"})
#: Headers whose values are URLs (a redirect's Location may carry an authorization code).
URL_HEADERS = frozenset({"location", "content-location", "refresh"})


def is_secret_name(name: str) -> bool:
    if name.lower().replace("-", "_") in OAUTH_CREDENTIAL_NAMES:
        return True
    return name.upper() not in NOT_SECRET and bool(SECRET_NAME.search(name))


def redact_value(name: str, value: str) -> str:
    """A value under ``name``: hidden if the name looks secret, else with URL credentials removed."""
    if is_secret_name(name) and value:
        return REDACTED
    return redact_url(value) if "://" in value else value


def redact_env(env: dict[str, str]) -> dict[str, str]:
    """Copy of ``env`` with the values of secret-looking names replaced and URL credentials removed."""
    return {k: redact_value(k, v) for k, v in env.items()}


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    """Secret headers hidden; URL-valued headers (Location) with their secrets removed (:func:`redact_url`)."""
    return {
        k: (REDACTED if (k.lower() in SECRET_HEADERS or is_secret_name(k)) else
            redact_url(v) if k.lower() in URL_HEADERS else v) for k, v in headers.items()
    }


#: ``name=value`` of an OAuth secret in free text (an error page, a redirect's "Redirecting to URL" body).
_SECRET_ASSIGNMENT = re.compile(r"(?i)\b(code|code_verifier|state|access_token|refresh_token|id_token|client_secret"
                                r"|assertion|client_assertion|subject_token|actor_token)=([^&\s\"'<>]+)")


def redact_text(text: str) -> str:
    """Free text (a snippet of a body) with the values of OAuth secrets given as ``name=value`` hidden."""
    return _SECRET_ASSIGNMENT.sub(lambda m: f"{m.group(1)}={REDACTED}", text)


def _secret_param(name: str) -> bool:
    return is_secret_name(name) or name.lower() in OAUTH_SECRET_PARAMS


def redact_url(url: str) -> str:
    """Remove ``user:password@`` and the values of secret-looking query parameters (OAuth's ``code``,
    ``code_verifier`` and ``state`` too)."""
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
        if any(_secret_param(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if _secret_param(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_argv(argv: list[str]) -> list[str]:
    """Redact secrets in a command line: ``--token X``, ``--api-key=X``, ``NAME=secret`` (``docker -e``,
    ``env``), a secret header given as ``"Authorization: Bearer X"``, and credentials in URLs."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        if arg.startswith("-") and "=" in arg:
            flag, value = arg.split("=", 1)
            out.append(flag + "=" + redact_value(flag.lstrip("-"), value))
            continue
        if arg.startswith("-") and is_secret_name(arg.lstrip("-")):
            hide_next = True
            out.append(arg)
            continue
        assignment = _ASSIGNMENT.match(arg)
        if assignment and not arg.startswith("-"):
            out.append(assignment.group(1) + "=" + redact_value(assignment.group(1), assignment.group(2)))
            continue
        header = _HEADER_ARG.match(arg)
        if header and (header.group(1).lower() in SECRET_HEADERS or is_secret_name(header.group(1))):
            out.append(f"{header.group(1)}: {REDACTED}")
            continue
        out.append(redact_url(arg) if "://" in arg else arg)
    return out
