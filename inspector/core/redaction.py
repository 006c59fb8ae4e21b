"""Secrets out of what we save: environment values, HTTP headers, URL credentials and secret-looking flags.

Redaction is on by default for every capture (``--no-redact`` keeps secrets). Wire messages themselves are
kept as they are: they are what the user came to see, and we cannot know which strings in them are secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"

#: Names of variables, headers, flags and query parameters whose values are treated as secrets (each a
#: regular expression searched in the name, case ignored).
SECRET_NAME_PATTERNS = (
    r"token(?!izer)", r"secret", r"passw", r"passphrase", r"(^|[-_])pass$", r"(.[-_]|^db_?)pwd", r"api[-_]?key",
    r"apikey", r"access[-_]?key", r"private[-_]?key", r"credential", r"auth(?!or)", r"cookie", r"signature",
    r"bearer", r"(^|[-_])key$", r"(^|[-_])pat$", r"jwt", r"(^|[-_])salt$", r"^sess(ion)?$", r"(^|[-_])sk$",
    r"(^|[-_])dsn$", r"webhook",
)
SECRET_NAME = re.compile("(?i)(" + "|".join(SECRET_NAME_PATTERNS) + ")")
#: Names that look secret to the pattern but are not.
NOT_SECRET = frozenset({"PWD", "OLDPWD"})
#: Values that are secrets by their shape, whatever their name says (a key pasted under ``STRIPE_SK``,
#: ``MY_VAR`` or as a bare argument): each match is replaced, the text around it kept.
SECRET_VALUE_PATTERNS = (
    r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{4,}",  # Stripe secret and restricted keys
    r"\bsk-(?:ant-|proj-)?[0-9A-Za-z_-]{8,}",  # Anthropic, OpenAI
    r"\bgh[pousr]_[0-9A-Za-z]{8,}", r"\bgithub_pat_[0-9A-Za-z_]{8,}",  # GitHub
    r"\bglpat-[0-9A-Za-z_-]{8,}",  # GitLab
    r"\bxox[abposr]-[0-9A-Za-z-]{8,}",  # Slack tokens
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ids
    r"\bAIza[0-9A-Za-z_-]{30,}",  # Google API keys
    r"\bnpm_[0-9A-Za-z]{20,}", r"\bhf_[0-9A-Za-z]{20,}", r"\bpypi-[0-9A-Za-z_-]{20,}",
    r"\beyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]*",  # JSON Web Tokens
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
)
SECRET_VALUE = re.compile("|".join(f"(?:{pattern})" for pattern in SECRET_VALUE_PATTERNS))
#: Keys of a ``key=value;`` connection string (ADO.NET, ODBC, JDBC, Azure) whose values are secrets.
CONNECTION_STRING_SECRET_KEYS = ("password", "pwd", "accountkey", "sharedaccesskey", "sharedaccesssignature",
                                 "clientsecret", "client secret", "token", "secret")
_CONNECTION_SECRET = re.compile(r"(?i)(^|;)\s*(" + "|".join(re.escape(k) for k in CONNECTION_STRING_SECRET_KEYS)
                                + r")\s*=\s*(\{[^}]*\}|[^;]*)")
#: URLs that are secrets by themselves (anyone who holds one can post): (host, path prefix); the path after the
#: prefix is hidden.
SECRET_URL_PATHS = (("hooks.slack.com", "/services/"), ("hooks.slack.com", "/workflows/"),
                    ("discord.com", "/api/webhooks/"), ("discordapp.com", "/api/webhooks/"),
                    ("outlook.office.com", "/webhook/"), ("chat.googleapis.com", "/v1/spaces/"))
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
    """A value under ``name``: hidden if the name looks secret, else with the secrets its shape shows removed
    (:func:`redact_shapes`)."""
    if is_secret_name(name) and value:
        return REDACTED
    return redact_shapes(value)


def redact_shapes(value: str) -> str:
    """``value`` with what is secret by its shape hidden, whatever it is called: keys and tokens of a known form
    (:data:`SECRET_VALUE_PATTERNS`), the secret parts of a connection string (``Password=...;``), URL
    credentials and secret query parameters, the path of a webhook URL."""
    value = SECRET_VALUE.sub(REDACTED, value)
    if "=" in value:
        value = _CONNECTION_SECRET.sub(lambda m: f"{m.group(1)}{m.group(2)}={REDACTED}", value)
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


def secret_forms(secret: str) -> set[str]:
    """The ways a known secret (a token, a code) shows up in text: as it is, without the spaces and line breaks
    around it, and escaped as Python's ``repr`` and JSON write it (an error message quoting a header value
    writes ``b'Bearer abc\\n'``)."""
    import json

    forms = {secret, secret.strip()}
    forms.add(repr(secret)[1:-1])
    forms.add(json.dumps(secret)[1:-1])
    return {form for form in forms if form}


def redact_known(value: Any, secrets: Iterable[str]) -> Any:
    """``value`` (strings, and dicts and lists of them) with each of ``secrets`` replaced by ``[redacted]`` in every
    string, the longest first (a token inside "Bearer TOKEN"); keys are kept."""
    ordered = sorted(set(secrets), key=len, reverse=True)
    if not ordered:
        return value

    def clean(item: Any) -> Any:
        if isinstance(item, str):
            for secret in ordered:
                if secret in item:
                    item = item.replace(secret, REDACTED)
            return item
        if isinstance(item, dict):
            return {key: clean(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [clean(inner) for inner in item]
        return item

    return clean(value)


#: Query parameters that carry a transport's session id (HTTP+SSE's endpoint: ``/messages?session=...`` or
#: ``sessionId``): kept, as the ``Mcp-Session-Id`` header is (a session id is no credential in MCP: "session IDs
#: must not be used for authentication"), so the endpoint a capture shows is the one the server sent.
SESSION_ID_PARAMS = frozenset({"session", "sessionid", "session_id"})


def _secret_param(name: str) -> bool:
    if name.lower() in SESSION_ID_PARAMS:
        return False
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
    host = (parts.hostname or "").lower()
    path = parts.path
    for secret_host, prefix in SECRET_URL_PATHS:
        if host == secret_host and path.startswith(prefix) and len(path) > len(prefix):
            path = prefix + REDACTED
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_secret_param(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if _secret_param(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, path, query, parts.fragment))


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
        out.append(redact_shapes(arg))
    return out
