"""The ``auth`` step of a URL: did the server ask for authorization (401, or 403 with a challenge), and where
would a sign-in go.

Without ``--oauth``, a 401 fails the step, and the OAuth discovery the flow would start with runs alone
(:meth:`inspector.core.auth.flow.OAuthClient.discover`: the protected resource metadata of RFC 9728, then the
authorization server's of RFC 8414), so the sentence can say whether signing in can work and with whom. Its
requests go out with the target's own TLS settings and headers' User-Agent, and nothing is stored. With
``--oauth``, the session ran the flow itself: its outcome (the session's sentence, naming the failed step) is
the step's.
"""

from __future__ import annotations

from inspector.core.auth.challenge import Challenge, parse_challenge
from inspector.core.auth.flow import AuthIO, OAuthClient, Reply
from inspector.core.auth.model import AuthError, OAuthOptions
from inspector.core.auth.tokens import TokenStore
from inspector.core.doctor.http_steps import asks_authorization
from inspector.core.doctor.model import Step, failed, passed, warning
from inspector.core.doctor.session_run import SessionRun
from inspector.core.session.target import Target
from inspector.core.transports.http_common import USER_AGENT, explain
from inspector.core.wire.events import Event

#: Bound on each request of the discovery the doctor runs alone.
DISCOVERY_TIMEOUT = 10.0

FIX_SIGN_IN = ("Sign in with --oauth (in the window: tick OAuth in the server's profile), or give a token the server "
               "accepts with --bearer TOKEN.")


async def auth_step(run: SessionRun, target: Target, *, sign_in: bool = True) -> Step:
    """``auth``: no authorization asked, or a sign-in that worked; else why not and where it would go.
    ``sign_in`` False: the doctor's session did not run the OAuth flow ``target`` asks for (the window's own
    session does, with the person), so the 401 it met is expected: a warning, not a failure."""
    asked = asks_authorization(run)
    if not asked:
        return passed("auth", "the server asked for no authorization")
    first = asked[0]
    status = int(first.data["status"])
    header = _header(first, "www-authenticate") or ""
    said = f"HTTP {status}" + (f", WWW-Authenticate: {header}" if header else ", no WWW-Authenticate header")
    if run.server is not None:
        how = "the OAuth flow got a token" if target.oauth is not None else "the token sent was accepted"
        return passed("auth", f"the server asked for authorization ({said}) and {how}")
    if target.oauth is not None and sign_in:
        return failed("auth", str(run.error) if run.error else f"the server refused the sign-in ({said})",
                      "See which OAuth step failed: its sentence names the rule; --oauth-authorize, --client-id and "
                      "--scope change how the flow runs.")
    challenge = parse_challenge(header)
    if status == 403:
        scope = f" (it wants the scope {challenge.scope})" if challenge.scope else ""
        return failed("auth", f"the server refused the request ({said}){scope}",
                      "Ask for the scope the server names (--scope with --oauth), or use a token that has it.")
    sent = " the token sent was refused, and" if target.bearer or _sends_authorization(target) else ""
    found = await discovery_sentence(target, challenge)
    detail = f"the server requires authorization ({said}):{sent} {found}"
    if target.oauth is not None:
        return warning("auth", detail, "Nothing to do here: the session signs in with OAuth before its "
                                       "handshake; this diagnosis does not.")
    return failed("auth", detail, FIX_SIGN_IN)


def _sends_authorization(target: Target) -> bool:
    return any(name.lower() == "authorization" for name in target.headers)


def _header(event: Event, name: str) -> str | None:
    headers = event.data.get("response_headers") or {}
    return next((str(v) for k, v in headers.items() if k.lower() == name), None)


async def discovery_sentence(target: Target, challenge: Challenge) -> str:
    """What OAuth discovery finds for the target, as a clause: its authorization server and what it supports,
    or the step where discovery stops."""
    import httpx

    options = target.http_options()
    async with httpx.AsyncClient(timeout=DISCOVERY_TIMEOUT, follow_redirects=False, trust_env=False,
                                 verify=options.verify()) as http:
        async def fetch(method: str, url: str, step: str, headers: dict[str, str], body: bytes | None) -> Reply:
            try:
                response = await http.request(method, url, headers={"User-Agent": USER_AGENT, **headers},
                                              content=body)
            except httpx.HTTPError as exc:
                raise AuthError(f"OAuth {step}: {explain(exc, method, url)}") from None
            return Reply(response.status_code, response.headers, response.content, str(response.url))

        client = OAuthClient(target.url, OAuthOptions(), store=TokenStore(use_keyring=False))
        try:
            prm = await client.discover(AuthIO(fetch), challenge)
        except AuthError as exc:
            return f"OAuth discovery stops: {exc}"
    registration = "dynamic client registration offered" if client.metadata.get("registration_endpoint") else \
        "no dynamic client registration (a client id is needed: --client-id)"
    where = "its protected resource metadata names" if prm is not None else \
        "it publishes no protected resource metadata (a 2025-03-26 server), so its sign-in goes to"
    return f"{where} the authorization server {client.issuer} ({registration})"
