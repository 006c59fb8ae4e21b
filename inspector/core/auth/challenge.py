"""Reading ``WWW-Authenticate`` challenges (RFC 9110 section 11.6.1, RFC 6750 section 3, RFC 9728 section 5.1)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SCHEME = re.compile(r"[\s,]*([A-Za-z0-9_.\-!#$%&'*+^`|~]+)(?:\s+|\s*,\s*|$)")
_PARAM = re.compile(r'\s*([A-Za-z0-9_.\-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]*)\s*,?')


@dataclass
class Challenge:
    """The parameters of the ``Bearer`` challenge of a 401 or 403 (empty when there is none)."""

    scheme: str = ""
    params: dict[str, str] = field(default_factory=dict)

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata") or None

    @property
    def scope(self) -> str | None:
        return self.params.get("scope") or None

    @property
    def error(self) -> str | None:
        return self.params.get("error") or None


def parse_challenges(header: str) -> list[Challenge]:
    """Every challenge of a ``WWW-Authenticate`` value, in order (``Bearer ..., DPoP ...``). Quoted values are
    unescaped."""
    challenges: list[Challenge] = []
    position = 0
    while position < len(header):
        param = _PARAM.match(header, position)
        if param and challenges:
            value = param.group(2)
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            challenges[-1].params[param.group(1).lower()] = value
            position = param.end()
            continue
        scheme = _SCHEME.match(header, position)
        if not scheme:
            break
        challenges.append(Challenge(scheme=scheme.group(1)))
        position = scheme.end()
    return challenges


def parse_challenge(header: str) -> Challenge:
    """The ``Bearer`` challenge of a ``WWW-Authenticate`` value (the first challenge of any scheme when none
    is Bearer; an empty one when the header says nothing). Quoted values are unescaped."""
    challenges = parse_challenges(header)
    for challenge in challenges:
        if challenge.scheme.lower() == "bearer":
            return challenge
    return challenges[0] if challenges else Challenge()
