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
from inspector.core.auth.flow import OAuthClient
from inspector.core.auth.model import AuthError, OAuthOptions
from inspector.core.auth.tokens import TokenStore
from inspector.core.connect.target import Target
from inspector.core.doctor.http_steps import asks_authorization
from inspector.core.doctor.model import Step, failed, passed, warning
from inspector.core.doctor.session_run import SessionRun
from inspector.core.transports.credentials import AuthIO, Reply
from inspector.core.transports.http_common import USER_AGENT, explain
from inspector.core.transports.redirects import OWN_HEADERS, home_only_hooks

#: Bound on each request of the discovery the doctor runs alone.
DISCOVERY_TIMEOUT = 10.0

#: The request that draws the challenge: a ping, the one request allowed before initialize.
PING = b'{"jsonrpc":"2.0","id":"mcp-inspector-doctor","method":"ping"}'
PING_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

FIX_SIGN_IN = ("Sign in with --oauth (in the window: tick OAuth in the server's profile), or give a token the server "
               "accepts with --bearer TOKEN.")


async def auth_step(run: SessionRun, target: Target, *, sign_in: bool = True) -> Step:
    """``auth``: no authorization asked, or a sign-in that worked; else why not and where it would go.
    ``sign_in`` False: the doctor's session did not run the OAuth flow ``target`` asks for (the window's own
    session does, with the person), so the 401 it met is expected: a warning, not a failure."""
    asked = asks_authorization(run)
    if not asked:
        return passed("auth", "the server asked for no authorization")
    status = int(asked[0].data["status"])
    if run.server is not None:
        how = "the OAuth flow got a token" if target.oauth is not None else "the token sent was accepted"
        return passed("auth", f"the server asked for authorization (HTTP {status}) and {how}")
    if target.oauth is not None and sign_in:
        return failed("auth", str(run.error) if run.error else f"the server refused the sign-in (HTTP {status})",
                      "See which OAuth step failed: its sentence names the rule; --oauth-authorize, --client-id and "
                      "--scope change how the flow runs.")
    challenge, found = await discovery(target)
    asks = f"HTTP {status}, {_described(challenge)}"
    if status == 403:
        scope = f" (it wants the scope {challenge.scope})" if challenge.scope else ""
        return failed("auth", f"the server refused the request ({asks}){scope}",
                      "Ask for the scope the server names (--scope with --oauth), or use a token that has it.")
    sent = " the token sent was refused, and" if target.bearer or _sends_authorization(target) else ""
    detail = f"the server requires authorization ({asks}):{sent} {found}"
    if target.oauth is not None:
        return warning("auth", detail, "Nothing to do here: the session signs in with OAuth before its handshake; "
                                       "this diagnosis does not.")
    return failed("auth", detail, FIX_SIGN_IN)


def _sends_authorization(target: Target) -> bool:
    return any(name.lower() == "authorization" for name in target.headers)


def _described(challenge: Challenge) -> str:
    if not challenge.scheme:
        return "no WWW-Authenticate challenge"
    scope = f" for the scope {challenge.scope}" if challenge.scope else ""
    return f"a {challenge.scheme} challenge{scope}"


async def discovery(target: Target) -> tuple[Challenge, str]:
    """The server's challenge, and what OAuth discovery finds from it, as a clause: the authorization server and
    whether it registers clients, or the step where discovery stops.

    The challenge is asked for again, with the one request the spec allows before ``initialize`` (a ``ping``, as
    the window's sign-in does): the session's own events hold the ``WWW-Authenticate`` header redacted."""
    import httpx

    options = target.http_options()
    async with httpx.AsyncClient(timeout=DISCOVERY_TIMEOUT, follow_redirects=False, trust_env=False,
                                 verify=options.verify(), event_hooks=home_only_hooks(target.url, options.base_headers)
                                 ) as http:
        async def fetch(method: str, url: str, step: str, headers: dict[str, str], body: bytes | None) -> Reply:
            try:  # only the challenge carries the user's headers; the flow's requests carry what the flow chose
                response = await http.request(method, url, headers={"User-Agent": USER_AGENT, **headers},
                                              content=body, extensions={OWN_HEADERS: step != "challenge"})
            except httpx.HTTPError as exc:
                raise AuthError(f"OAuth {step}: {explain(exc, method, url)}") from None
            return Reply(response.status_code, response.headers, response.content, str(response.url))

        try:
            reply = await fetch("POST", target.url, "challenge", {**options.base_headers(), **PING_HEADERS}, PING)
        except AuthError as exc:
            return Challenge(), f"OAuth discovery stops: {exc}"
        challenge = parse_challenge(reply.headers.get("www-authenticate", ""))
        client = OAuthClient(target.url, OAuthOptions(), store=TokenStore(use_keyring=False))
        try:
            prm = await client.discover(AuthIO(fetch), challenge)
        except AuthError as exc:
            return challenge, f"OAuth discovery stops: {exc}"
    registration = "dynamic client registration offered" if client.metadata.get("registration_endpoint") else \
        "no dynamic client registration (a client id is needed: --client-id)"
    where = "its protected resource metadata names" if prm is not None else \
        "it publishes no protected resource metadata (a 2025-03-26 server), so its sign-in goes to"
    return challenge, f"{where} the authorization server {client.issuer} ({registration})"
