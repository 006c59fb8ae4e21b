"""The handshake of one session: which protocol revision and era it speaks, negotiated as each revision says.

Modes (:data:`HANDSHAKE_MODES`):

* ``legacy``: ``initialize`` with a chosen protocolVersion, then ``notifications/initialized``
  (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle);
* ``modern``: 2026-07-28, no handshake: ``server/discover``, and ``_meta`` with the protocol version and client
  capabilities on every request (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning);
* ``auto``: probe ``server/discover`` and fall back to ``initialize`` on any error that is not a recognized
  modern one, or on no answer within :data:`DISCOVER_PROBE_TIMEOUT` (stdio backward compatibility rules);
* ``none``: no handshake at all.

Versions are negotiated as each revision says: an ``UnsupportedProtocolVersionError`` (-32022) to
``server/discover`` names the revisions the server supports, and the handshake retries once with the newest one
both sides speak (the same one when the server lists it: a transient rejection), or, when the server shares only
pre-2026 revisions with us, falls back to ``initialize`` with the newest of those; an ``initialize`` rejected with
``data.supported`` (the legacy lifecycle's "Unsupported protocol version") is retried once the same way. When
nothing is shared, the error is one sentence naming both lists. Every step is a note of the session.

The handshake's ``timeout`` bounds all of it (probe, retries and ``initialize``); each "no response" sentence
ends with the session's ``timeout_hint``, which names what raises the bound (``--timeout`` on the command line).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from inspector.core.protocol.revisions import REVISIONS as KNOWN_REVISIONS
from inspector.core.protocol.revisions import STATELESS_FROM
from inspector.core.session.outcomes import (
    MISSING_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    HandshakeError,
    RequestTimeout,
    RevisionRefused,
    ServerInfo,
    client_info,
    error_text,
    result_of,
)
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.wire.events import Event

if TYPE_CHECKING:
    from inspector.core.session.session import Session

#: The revision of the era without an initialize handshake that mcp-inspector speaks.
MODERN_REVISION = STATELESS_FROM
#: The revisions without an initialize handshake that mcp-inspector speaks, newest first.
MODERN_REVISIONS = tuple(v for v in reversed(KNOWN_REVISIONS) if v >= STATELESS_FROM)
#: The revisions with the initialize handshake, newest first.
LEGACY_REVISIONS = tuple(v for v in reversed(KNOWN_REVISIONS) if v < STATELESS_FROM)
#: Every revision mcp-inspector speaks, newest first.
REVISIONS = MODERN_REVISIONS + LEGACY_REVISIONS
DEFAULT_LEGACY_REVISION = LEGACY_REVISIONS[0]
HANDSHAKE_MODES = ("auto", "legacy", "modern", "none")
#: The spec leaves the probe timeout to clients; a legacy server that ignores unknown methods costs this (or
#: half the handshake's bound, when that is shorter: initialize gets the rest).
DISCOVER_PROBE_TIMEOUT = 5.0


class Handshake:
    """One handshake of ``session`` in ``mode``, bounded by ``timeout`` seconds in all."""

    def __init__(self, session: Session, mode: str, timeout: float) -> None:
        if mode not in HANDSHAKE_MODES:
            raise ValueError(f"handshake mode must be one of {', '.join(HANDSHAKE_MODES)}")
        self.session = session
        self.mode = mode
        self.whole = timeout  #: the whole bound (a "no response" sentence of a later step names it)
        self.deadline = asyncio.get_running_loop().time() + timeout  #: loop time
        #: the auto probe's server/discover, still awaited after the probe gave up on it (until the handshake ends)
        self._late_probe: asyncio.Future[Event] | None = None

    async def run(self, protocol_version: str | None) -> ServerInfo:
        """What the server is, at ``protocol_version`` (None: the default of the mode; in ``auto`` mode, the
        revision initialize asks for), negotiated as the server's rejections say."""
        mode, timeout = self.mode, self.whole
        if mode == "none":
            return ServerInfo("unknown")
        if mode == "legacy":
            return await self._initialize(protocol_version or DEFAULT_LEGACY_REVISION, timeout)
        if mode == "modern":
            found = await self._discover(protocol_version or MODERN_REVISION, timeout, auto=False)
            assert isinstance(found, ServerInfo)
            return found
        self.session.note(f"probing with server/discover ({MODERN_REVISION}); a legacy server gets initialize "
                          "instead")
        # the probe takes at most half the bound: a legacy server that ignores it still gets initialize
        found = await self._discover(MODERN_REVISION, min(timeout / 2, DISCOVER_PROBE_TIMEOUT), auto=True)
        if isinstance(found, ServerInfo):
            return found
        shared = found or []
        version = protocol_version if protocol_version in shared else \
            shared[0] if shared else protocol_version or DEFAULT_LEGACY_REVISION
        try:
            return await self._initialize(version, self.left())
        except HandshakeError:
            late = await self._late_discovery()
            if late is None:
                raise
            return late

    def end(self) -> None:
        """The handshake is over: a probe still waited for is let go in silence (no note, no
        notifications/cancelled: a legacy server must see initialize first)."""
        if self._late_probe is not None:
            self._late_probe.cancel()
            self._late_probe = None

    def left(self) -> float:
        """What is left of the handshake's bound for its next step; RequestTimeout (noted) once nothing is."""
        left = self.deadline - asyncio.get_running_loop().time()
        if left <= 0:
            text = f"no answer to the handshake within {self.whole:g} s; {self.session.timeout_hint}"
            self.session.note(text)
            raise RequestTimeout(text)
        return left

    async def _discover(self, version: str, timeout: float, auto: bool) -> ServerInfo | list[str] | None:
        """server/discover at ``version``, retried once at the revision a -32022 rejection leads to. Returns the
        modern server's info; in ``auto`` mode, for a server that is legacy, the revisions it named that we
        speak too (newest first), or None when another sign (an error, no answer) says it is legacy."""
        probing = auto  # until the server shows it is modern: then its failures are failures
        rejected = False
        while True:
            response = await self._discover_once(version, timeout, probing)
            if response is None:
                return None
            result, error = result_of(response)
            if error is None:
                return self._discovered(result, version, auto)
            code = error.get("code") if isinstance(error, dict) else None
            if code == MISSING_CLIENT_CAPABILITY:
                self.session.modern = False
                raise HandshakeError("the server requires client capabilities that mcp-inspector does not declare: "
                                     f"{_required_capabilities(error)}")
            if code != UNSUPPORTED_PROTOCOL_VERSION:
                self.session.modern = False
                if probing:
                    self.session.note(f"server/discover answered with error {code}: the server is legacy, using "
                                      "initialize")
                    return None
                raise HandshakeError(f"the server answered server/discover with an error: {error_text(error)}")
            theirs = _supported_from_error(error)
            if rejected:
                self.session.modern = False
                raise RevisionRefused(f"the server rejected protocol revision {version} again (error -32022), though "
                                     f"it lists it among those it supports: {', '.join(theirs) or 'none'}")
            chosen = self._modern_choice(version, theirs, f"rejected protocol revision {version} (error -32022)", auto)
            if isinstance(chosen, list):
                return chosen
            self.session.note(f"the server rejected protocol revision {version} (error -32022) and supports "
                      f"{', '.join(theirs)}: retrying server/discover with "
                      + ("the same revision, as it lists it" if chosen == version else chosen))
            version, probing, rejected = chosen, False, True
            timeout = self.left()

    async def _discover_once(self, version: str, timeout: float, probing: bool) -> Event | None:
        """One server/discover at ``version``. While probing, None when the server does not answer within
        ``timeout`` or fails as only a legacy server does; the probe's failures are said as the handshake's
        (the user asked for a handshake, not for server/discover)."""
        self.session.modern = True
        meta = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": self.session.client_capabilities(),
            "io.modelcontextprotocol/clientInfo": client_info(),
        }
        # no notifications/cancelled for an unanswered probe: a legacy server must see initialize first
        rest = self.deadline - asyncio.get_running_loop().time()
        bound = max(2 * timeout, timeout + 1, rest + 1) if probing else timeout
        request = self.session.request("server/discover", {"_meta": meta}, timeout=bound, inject_meta=False,
                                       cancel_on_timeout=False)
        try:
            if not probing:
                return await request
            # the probe's bound is ours, not the user's: it ends the probe (the request's own, longer bound would
            # say "raise --timeout"), and its end is no failure. The request itself goes on waiting until the
            # handshake ends: a server slower to start than the probe still shows it is modern (_late_discovery)
            probe = asyncio.ensure_future(request)
            try:
                done, _ = await asyncio.wait((probe,), timeout=timeout)
            except BaseException:  # the handshake itself cancelled (the user interrupted): the probe with it
                probe.cancel()
                raise
            if not done:
                self._late_probe = probe
                # it may still fail (the server exits, the session closes) when nobody awaits it any more
                probe.add_done_callback(lambda task: task.cancelled() or task.exception())
                raise TimeoutError
            return probe.result()
        except TimeoutError:
            self.session.modern = False
            self.session.note(f"no answer to server/discover within {timeout:g} s: treating the server as legacy")
            return None
        except TransportClosed as exc:
            self.session.modern = False
            if probing:
                raise TransportClosed(self.session.diagnosis("the handshake") or str(exc)) from None
            raise
        except TransportError as exc:
            self.session.modern = False
            if probing and not isinstance(exc, RequestTimeout):  # on HTTP, a 4xx without a modern JSON-RPC error
                self.session.note(f"server/discover failed ({exc}): treating the server as legacy")
                return None
            raise

    async def _late_discovery(self) -> ServerInfo | None:
        """After initialize failed: the modern server that answered the auto probe's server/discover later than
        the probe waited (a server slow to start: the SDK's imports alone take a second on a busy machine), else
        None. Its error to initialize, sent meanwhile, is then no failure of the handshake."""
        probe = self._late_probe
        if probe is None:
            return None
        # what is left of the handshake, without left()'s timeout sentence: with nothing left, the refusal of
        # initialize is what the user hears
        left = self.deadline - asyncio.get_running_loop().time()
        done, _ = await asyncio.wait((probe,), timeout=max(0.0, left))
        if not done or probe.cancelled() or probe.exception() is not None:
            return None
        result, error = result_of(probe.result())
        if error is not None:
            return None
        self.session.note(f"server/discover was answered after the probe stopped waiting: the server is modern "
                  f"({MODERN_REVISION}), and its error to initialize came from that")
        self.session.modern = True
        found = self._discovered(result, MODERN_REVISION, auto=True)
        return found if isinstance(found, ServerInfo) else None

    def _discovered(self, result: Any, version: str, auto: bool) -> ServerInfo | list[str]:
        """The modern server that answered server/discover at ``version``; in ``auto`` mode, the revisions to
        initialize with when it lists only legacy ones we speak."""
        if not isinstance(result, dict):
            self.session.modern = False
            raise HandshakeError("the server answered server/discover with a result that is not an object")
        listed = result.get("supportedVersions")
        theirs = [v for v in listed if isinstance(v, str)] if isinstance(listed, list) else []
        if version not in theirs:
            chosen = self._modern_choice(version, theirs, f"answered server/discover without listing {version}", auto)
            if isinstance(chosen, list):
                return chosen
            self.session.note(f"server/discover lists {', '.join(theirs)} but not {version}: speaking {chosen}")
            version = chosen
        meta_out = m if isinstance(m := result.get("_meta"), dict) else {}
        server_info = meta_out.get("io.modelcontextprotocol/serverInfo") or result.get("serverInfo") or {}
        self.session.note(f"the server answered server/discover: speaking {version} (no initialize handshake)")
        return ServerInfo(
            "modern", version, _str(server_info, "name"), _str(server_info, "version"),
            c if isinstance(c := result.get("capabilities"), dict) else {},
            result.get("instructions") if isinstance(result.get("instructions"), str) else None,
            theirs,
        )

    def _modern_choice(self, version: str, theirs: list[str], what: str, auto: bool) -> str | list[str]:
        """After the server turned ``version`` down (``what`` it did) naming ``theirs``: the modern revision to
        speak, or, in ``auto`` mode, the legacy ones to initialize with; one sentence when there is neither."""
        chosen = _choose(version, theirs, REVISIONS, LEGACY_REVISIONS)
        if chosen is None:
            self.session.modern = False
            raise RevisionRefused(_nothing_shared(version, theirs))
        if chosen not in MODERN_REVISIONS:
            return self._legacy_only(what, theirs, auto)
        return chosen

    def _legacy_only(self, what: str, theirs: list[str], auto: bool) -> list[str]:
        """A modern server that shares only legacy revisions with us: in ``auto`` mode, those revisions, newest
        first, to initialize with (noted); else one sentence."""
        self.session.modern = False
        shared = [v for v in LEGACY_REVISIONS if v in theirs]
        if not auto:
            raise RevisionRefused(f"the server {what} and supports {', '.join(theirs)}; the ones mcp-inspector also "
                                 f"speaks ({', '.join(shared)}) need initialize, which the modern handshake does not "
                                 "send (try --handshake auto)")
        self.session.note(f"the server {what} and supports {', '.join(theirs)}: falling back to initialize, at a "
                          "revision both speak")
        return shared

    async def _initialize(self, version: str, timeout: float) -> ServerInfo:
        """initialize at ``version``, retried once when the server rejects it naming the revisions it supports
        (``data.supported``: the lifecycle's "Unsupported protocol version"), then notifications/initialized."""
        self.session.modern = False
        for attempt in (1, 2):
            params = {"protocolVersion": version, "capabilities": self.session.client_capabilities(),
                      "clientInfo": client_info()}
            # "The initialize request MUST NOT be cancelled by clients" (2025-11-25 cancellation)
            response = await self.session.request("initialize", params, timeout=timeout, cancel_on_timeout=False)
            result, error = result_of(response)
            if error is None:
                break
            theirs = _supported_from_error(error) if isinstance(error, dict) else []
            if not theirs or attempt == 2:
                again = " again" if attempt == 2 else ""
                raise HandshakeError(f"the server answered initialize{again} with an error: {error_text(error)}")
            chosen = _choose(version, theirs, LEGACY_REVISIONS, MODERN_REVISIONS)
            if chosen is None:
                modern = _choose(version, theirs, MODERN_REVISIONS, LEGACY_REVISIONS)
                raise RevisionRefused(_nothing_shared(version, theirs) if modern is None else
                                     f"the server rejected initialize at {version} and supports {', '.join(theirs)}; "
                                     f"the one mcp-inspector also speaks ({modern}) has no initialize handshake (try "
                                     "--handshake modern)")
            self.session.note(f"the server rejected initialize at {version} ({error_text(error)}) and supports "
                      f"{', '.join(theirs)}: retrying initialize with "
                      + ("the same revision, as it lists it" if chosen == version else chosen))
            version = chosen
            timeout = self.left()
        if not isinstance(result, dict):
            raise HandshakeError("the server answered initialize with a result that is not an object")
        negotiated = result.get("protocolVersion")
        if not isinstance(negotiated, str):
            raise HandshakeError("the server's initialize result has no protocolVersion")
        if negotiated != version:
            unknown = "" if negotiated in REVISIONS else ", a revision mcp-inspector does not know (carrying on)"
            self.session.note(f"asked for protocol {version}, the server chose {negotiated}{unknown}")
        self.session.negotiated("legacy", negotiated)  # headers of notifications/initialized need it
        await self.session.notify("notifications/initialized")
        info = i if isinstance(i := result.get("serverInfo"), dict) else {}
        return ServerInfo(
            "legacy", negotiated, _str(info, "name"), _str(info, "version"),
            c if isinstance(c := result.get("capabilities"), dict) else {},
            result.get("instructions") if isinstance(result.get("instructions"), str) else None,
        )


def _supported_from_error(error: dict[str, Any]) -> list[str]:
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("supported"), list):
        return [v for v in data["supported"] if isinstance(v, str)]
    return []


def _required_capabilities(error: dict[str, Any]) -> str:
    data = error.get("data")
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    return json.dumps(required, separators=(",", ":")) if required is not None else "it does not say which"



def _choose(requested: str, theirs: list[str], ours: tuple[str, ...], other_era: tuple[str, ...]) -> str | None:
    """The revision to retry with after the server rejected ``requested`` naming ``theirs``: the same one when
    it lists it (a transient rejection) and it is not of the ``other_era`` (which this request cannot carry),
    else the newest of ``ours`` that it lists; None when there is none."""
    if requested in theirs and requested not in other_era:
        return requested
    return next((v for v in ours if v in theirs), None)



def _nothing_shared(requested: str, theirs: list[str]) -> str:
    """The sentence for a server that speaks no revision we speak (both lists named)."""
    ours = ", ".join(REVISIONS)
    if not theirs:
        return (f"the server rejected protocol revision {requested} without naming the revisions it supports; "
                f"mcp-inspector speaks {ours}")
    return (f"the server and mcp-inspector share no protocol revision: the server supports {', '.join(theirs)}; "
            f"mcp-inspector speaks {ours}")



def _str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None
