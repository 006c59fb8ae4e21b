"""What an HTTP transport asks of the credentials it sends: the interface the transport owns and the OAuth
client (:class:`inspector.core.auth.flow.OAuthClient`) fills.

The transport sits below authorization (docs/architecture.md): it knows that a request may carry credentials,
that a 401 (or a 403 ``insufficient_scope``) may call for new ones and that getting them takes HTTP exchanges of
its own, which it records. It does not know OAuth: the :class:`Credentials` decide what a challenge means and
how to answer it, through the :class:`AuthIO` the transport gives them (each exchange an ``http`` event marked
``auth_step``, each step a ``note``), and refuse with a :class:`CredentialsError` whose text is one sentence.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class CredentialsError(Exception):
    """No credentials can be had for the request: ``str()`` is one sentence (the OAuth flow's
    :class:`~inspector.core.auth.model.AuthError` is one)."""


@dataclass
class Reply:
    """One answered HTTP exchange made for the credentials."""

    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str

    def json(self) -> dict[str, Any] | None:
        try:
            value = json.loads(self.body)
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, dict) else None


class Noted(Protocol):
    """A step of getting credentials, as the transport records it (a ``note`` event's data)."""

    def as_data(self) -> dict[str, Any]: ...


#: ``fetch(method, url, step, headers, body)``: one recorded exchange; raises :class:`CredentialsError` on a
#: network failure.
Fetch = Callable[[str, str, str, dict[str, str], bytes | None], Awaitable[Reply]]


def _no_note(step: Any) -> None:
    return None


@dataclass
class AuthIO:
    """How the credentials reach the network and report: given by the transport for each run."""

    fetch: Fetch
    note: Callable[[Any], None] = _no_note


class Credentials(Protocol):
    """The credentials an HTTP transport sends (``HttpOptions.oauth``), renewed when a response calls for it."""

    #: bumped whenever the token changes (a request that failed with an older one need not start a new login)
    generation: int
    #: values that must never reach a capture (tokens, codes, verifiers, secrets)
    secrets: set[str]
    #: how many times one request may be sent again after a 403 that asks for more scope
    max_step_ups: int

    async def before_request(self, io: AuthIO) -> None:
        """Renew what has expired before a request is sent."""

    def request_headers(self, method: str, url: str) -> dict[str, str]:
        """The headers that carry the credentials on this request."""

    def resource_nonce(self, status: int, headers: Mapping[str, str], url: str) -> bool:
        """Whether the response asks for the request again with a nonce it gave (DPoP)."""

    def note_nonce_retry(self, url: str, io: AuthIO) -> None:
        """Record that the request is sent again for a nonce."""

    def challenge_of(self, www_authenticate: str) -> Any:
        """The response's ``WWW-Authenticate`` header read, for :meth:`handles` and :meth:`on_challenge`."""

    def handles(self, status: int, challenge: Any) -> bool:
        """Whether this response calls for new credentials."""

    async def on_challenge(self, status: int, challenge: Any, sent_generation: int, io: AuthIO) -> None:
        """Get credentials that should pass; the transport sends the request again once. Raises
        :class:`CredentialsError`."""

    def give_up_step_up(self, io: AuthIO) -> CredentialsError:
        """The error once a request is still refused after :attr:`max_step_ups` renewals."""
