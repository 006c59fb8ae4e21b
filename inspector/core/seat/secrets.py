"""The secrets a target carries, and a tool's result with them hidden: the seat returns nothing that holds the
secrets of the server it worked on (issue 44: "secrets redacted in everything returned").

What counts as a secret is what the inspector's redaction hides (:mod:`inspector.core.redaction`): the values
of secret-looking flags (``--api-key X``, ``--token=X``), environment variables and headers (``API_KEY``,
``Authorization``), and the credentials of a URL (``user:password@``, ``?token=``, a webhook's path). Those
exact values are found in the target (its argv, env, headers and URL, a saved server's included) and replaced
with ``[redacted]`` in every string of the result, so they are hidden wherever they come back: a report's
command line (``diff``'s ``source``), the server's stderr, the server's own answer echoing its argv.

A value too plain to be told from ordinary text (shorter than :data:`MIN_SECRET`, a lowercase word, a number:
``AUTH_MODE=required``) is left alone: hiding every ``required`` would break the JSON the tools return.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from inspector.core.clients.profiles import PLACEHOLDER
from inspector.core.redaction import (
    REDACTED,
    redact_argv,
    redact_env,
    redact_headers,
    redact_known,
    redact_url,
    secret_forms,
)

#: the shortest value hidden (shorter ones match too much ordinary text)
MIN_SECRET = 6
_PLAIN = re.compile(r"[a-z]+|[0-9]+|true|false|null|none")


def url_secrets(url: str) -> set[str]:
    """What :func:`redact_url` hides of ``url``: its user info, the values of its secret query parameters (as
    written and decoded), a webhook's secret path."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rsplit("@", 1)[-1]
        # without its user info: redact_url writes "[redacted]@", which urlsplit reads as an IPv6 address
        hidden = urlsplit(redact_url(parts._replace(netloc=host).geturl()))
    except ValueError:
        return set()
    found: set[str] = set()
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        found |= {userinfo, *userinfo.split(":", 1)[1:]}
    if hidden.path != parts.path and hidden.path.endswith(REDACTED):
        found.add(parts.path[len(hidden.path) - len(REDACTED):])
    if hidden.query != parts.query:
        raw = [pair.partition("=")[2] for pair in parts.query.split("&")] if parts.query else []
        decoded = parse_qsl(parts.query, keep_blank_values=True)
        masked = parse_qsl(hidden.query, keep_blank_values=True)
        if len(decoded) == len(masked):
            for index, ((_name, value), (_same, shown)) in enumerate(zip(decoded, masked, strict=True)):
                if shown == REDACTED and value:
                    found.add(value)
                    if len(raw) == len(decoded):
                        found.add(raw[index])
    return found


def hidden_parts(original: str, redacted: str) -> set[str]:
    """The parts of ``original`` that its redacted form ``redacted`` hides (the whole of it when they cannot be
    told apart)."""
    if original == redacted:
        return set()
    if "://" in original:
        found = url_secrets(original.partition("=")[2] if original.startswith("-") else original)
        if found:
            return found
    if REDACTED in redacted:
        pattern = "(.+?)".join(re.escape(part) for part in redacted.split(REDACTED))
        match = re.fullmatch(pattern, original, re.DOTALL)
        if match:
            return {group for group in match.groups() if group}
    return {original}


def target_secrets(target: dict[str, Any]) -> set[str]:
    """The secrets of a resolved target (``command``/``env`` or ``url``/``headers``), in every form they may
    take in text (as written, stripped, JSON- and repr-escaped), plain values left out."""
    found: set[str] = set()
    argv = [str(arg) for arg in target.get("command") or []]
    for original, shown in zip(argv, redact_argv(argv), strict=True):
        found |= hidden_parts(original, shown)
    env = {str(k): str(v) for k, v in (target.get("env") or {}).items()}
    for name, shown in redact_env(env).items():
        found |= hidden_parts(env[name], shown)
    headers = {str(k): str(v) for k, v in (target.get("headers") or {}).items()}
    for name, shown in redact_headers(headers).items():
        if shown != headers[name]:
            value = headers[name]
            found |= hidden_parts(value, shown)
            scheme, _, credential = value.strip().partition(" ")
            if credential and scheme.isalpha():  # "Bearer TOKEN": the token alone shows up too
                found.add(credential)
    if target.get("url"):
        found |= url_secrets(str(target["url"]))
    return {form for secret in found if not _plain(secret) for form in secret_forms(secret) if not _plain(form)}


def _plain(value: str) -> bool:
    value = value.strip()  # a placeholder the client fills in (${input:token}) is no secret either
    return len(value) < MIN_SECRET or bool(_PLAIN.fullmatch(value) or PLACEHOLDER.fullmatch(value))


def scrub(value: Any, secrets: set[str]) -> Any:
    """``value`` (a tool's result: dicts, lists, strings) with each secret replaced by ``[redacted]`` in every
    string (keys are the tools' own names and are kept)."""
    return redact_known(value, secrets)
