"""An app's policy: the origins and permissions its resource asks for, what the inspector grants, and the rule
every request of the app is held to.

The resource's ``_meta.ui.csp`` lists origins per use (``connectDomains``, ``resourceDomains``, ``frameDomains``,
``baseUriDomains``) and ``_meta.ui.permissions`` the browser features it wants. The host "MUST construct CSP
headers based on declared domains", "MAY further restrict but MUST NOT allow undeclared domains", and with no
``csp`` uses a restrictive default
(https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx, "UI Resource
Format" and "Security Implications"). So:

- **requested** is what the server wrote, kept as written;
- **effective** is what the inspector enforces: each entry that is one origin (``https://api.example.com``,
  ``wss://rt.example.com:8443``, ``https://*.example.com``, with an optional path) is kept, normalised; anything
  that would allow more than the entry seems to say (``*``, ``https:``, ``'unsafe-eval'``, text with a space or a
  ``;`` that would smuggle another directive into the header, a scheme other than http, https, ws and wss) is
  dropped, with its reason;
- the Content-Security-Policy header is the spec's, built from the effective lists; and :meth:`Policy.refusal`
  is the same rule for the request interceptor, which blocks what the header would, as a second wall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: The four lists of ``_meta.ui.csp``, and what each allows.
CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
#: What a request is used for, as the interceptor tells it: each is allowed by one list.
CONNECT, RESOURCE, FRAME = "connect", "resource", "frame"
LIST_OF = {CONNECT: "connectDomains", RESOURCE: "resourceDomains", FRAME: "frameDomains"}
#: ``_meta.ui.permissions`` keys and the Permission Policy feature each maps to (the iframe's ``allow``).
PERMISSIONS = {"camera": "camera", "microphone": "microphone", "geolocation": "geolocation",
               "clipboardWrite": "clipboard-write"}
SCHEMES = ("https", "http", "wss", "ws")
DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}
#: The policy when the resource declares no ``csp`` (the spec's restrictive default), plus ``form-action``.
RESTRICTIVE_DEFAULT = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
                       "img-src 'self' data:; media-src 'self' data:; object-src 'none'; connect-src 'none'; "
                       "form-action 'none'")
_HOST = re.compile(r"^(\*\.)?([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$")
_FORBIDDEN = re.compile(r"[\s;,'\"\\<>\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Source:
    """One origin a policy allows: ``scheme://host[:port][/path]``; ``host`` may start with ``*.`` (any
    subdomain), ``port`` None is the scheme's default and ``"*"`` any port."""

    scheme: str
    host: str
    port: int | str | None = None
    path: str = ""

    def __str__(self) -> str:
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{self.host}{port}{self.path}"

    def matches(self, url: str) -> bool:
        """Whether ``url`` is covered by this source (CSP Level 3's host-source matching, simplified to the
        sources :func:`parse_source` accepts)."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return False
        scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
        if not _scheme_matches(self.scheme, scheme):
            return False
        wanted = self.host.strip("[]")
        if self.host.startswith("*."):
            if not host.endswith(self.host[1:]):  # a subdomain, never the domain itself
                return False
        elif host != wanted:
            return False
        actual_port = port if port is not None else DEFAULT_PORTS.get(scheme)
        if self.port is None:
            if actual_port != DEFAULT_PORTS.get(scheme) and actual_port != DEFAULT_PORTS.get(self.scheme):
                return False
        elif self.port != "*" and self.port != actual_port:
            return False
        if self.path:
            path = parts.path or "/"
            return path.startswith(self.path) if self.path.endswith("/") else path == self.path
        return True


def _scheme_matches(source: str, url: str) -> bool:
    """CSP Level 3's scheme-part match: the same scheme, or a secure variant of it."""
    return source == url or (source, url) in {("http", "https"), ("ws", "wss"), ("ws", "http"), ("ws", "https"),
                                               ("wss", "https")}


def parse_source(entry: Any) -> tuple[Source | None, str | None]:
    """``(source, None)`` for an entry that names one origin, else ``(None, reason)``: why it is not kept."""
    if not isinstance(entry, str):
        return None, "not a string"
    text = entry.strip()
    if not text:
        return None, "empty"
    if _FORBIDDEN.search(text):
        return None, ("it holds a space, a quote, a comma or a semicolon: as written it would add other sources "
                      "or directives to the policy")
    if text == "*" or text.endswith(":") and "//" not in text:
        return None, "it allows every origin (or every origin of a scheme), not one origin"
    if "://" not in text:
        return None, "it has no scheme: write it as https://HOST"
    scheme, _, rest = text.partition("://")
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        return None, f"the scheme {scheme}: is not one an app may reach (only http, https, ws and wss)"
    authority, slash, path = rest.partition("/")
    if "?" in path or "#" in path or "@" in authority:
        return None, "it has a query, a fragment or credentials: a source is an origin, maybe with a path"
    host, port_text = authority, None
    if authority.startswith("["):
        end = authority.find("]")
        host, port_text = authority[: end + 1], authority[end + 2:] if authority[end + 1: end + 2] == ":" else None
    elif ":" in authority:
        host, _, port_text = authority.rpartition(":")
    host = host.lower()
    if host == "*" or "*" in host[2:] or (host.startswith("*") and not host.startswith("*.")):
        return None, "a wildcard may only stand for subdomains (https://*.example.com), not the whole host"
    if not _HOST.match(host):
        return None, f"{host!r} is not a host name"
    port: int | str | None = None
    if port_text is not None:
        if port_text == "*":
            port = "*"
        elif port_text.isdigit() and 0 < int(port_text) < 65536:
            port = int(port_text)
        else:
            return None, f"{port_text!r} is not a port"
    return Source(scheme, host, port, slash + path if slash else ""), None


@dataclass(frozen=True)
class Dropped:
    """An entry of the requested policy that the inspector does not grant, and why."""

    key: str  #: ``connectDomains``, ... or ``permissions``
    entry: Any
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "entry": self.entry, "reason": self.reason}


@dataclass
class Policy:
    """What one app may reach. Build it with :func:`policy_of`."""

    #: ``_meta.ui.csp`` as the server wrote it (None: it declared none, and the restrictive default applies)
    requested_csp: Any = None
    #: ``_meta.ui.permissions`` as written
    requested_permissions: Any = None
    #: the sources enforced, per list of :data:`CSP_KEYS`
    sources: dict[str, tuple[Source, ...]] = field(default_factory=lambda: {key: () for key in CSP_KEYS})
    #: the permissions granted to ask for (keys of :data:`PERMISSIONS`)
    permissions: tuple[str, ...] = ()
    dropped: list[Dropped] = field(default_factory=list)

    @property
    def declared(self) -> bool:
        return isinstance(self.requested_csp, dict)

    def effective(self) -> dict[str, list[str]]:
        """The enforced lists, as origins (what the host tells the app in ``hostCapabilities.sandbox.csp``)."""
        return {key: [str(s) for s in self.sources[key]] for key in CSP_KEYS}

    def effective_permissions(self) -> dict[str, dict[str, Any]]:
        return {name: {} for name in self.permissions}

    def allow_attribute(self) -> str:
        """The iframe's ``allow`` attribute (Permission Policy) for the granted permissions."""
        return "; ".join(PERMISSIONS[name] for name in self.permissions)

    def csp(self) -> str:
        """The Content-Security-Policy header of the app's document: the spec's, from the effective lists, with
        ``form-action 'none'`` (no form posts the app away)."""
        if not self.declared:
            return RESTRICTIVE_DEFAULT
        r = " ".join(str(s) for s in self.sources["resourceDomains"])
        c = " ".join(str(s) for s in self.sources["connectDomains"])
        f = " ".join(str(s) for s in self.sources["frameDomains"]) or "'none'"
        b = " ".join(str(s) for s in self.sources["baseUriDomains"]) or "'self'"
        parts = ["default-src 'none'", f"script-src 'self' 'unsafe-inline' {r}",
                 f"style-src 'self' 'unsafe-inline' {r}", f"connect-src 'self' {c}", f"img-src 'self' data: {r}",
                 f"font-src 'self' {r}", f"media-src 'self' data: {r}", f"frame-src {f}", "object-src 'none'",
                 f"base-uri {b}", "form-action 'none'"]
        return "; ".join(" ".join(part.split()) for part in parts)

    def refusal(self, url: str, use: str) -> str | None:
        """Why the app may not load ``url`` for ``use`` (:data:`CONNECT`, :data:`RESOURCE`, :data:`FRAME`, or
        anything else, which nothing allows); None when the effective policy allows it."""
        key = LIST_OF.get(use)
        if key is None:
            return f"no list of the policy allows a {use} request"
        scheme = url.split(":", 1)[0].lower()
        if scheme not in SCHEMES:
            return f"the scheme {scheme}: is not one an app may reach"
        if any(source.matches(url) for source in self.sources[key]):
            return None
        if not self.declared:
            return f"the resource declares no _meta.ui.csp, so the app may reach no origin ({key})"
        return f"its origin is not in {key}"


def policy_of(ui_meta: Any) -> Policy:
    """The policy of a resource whose ``_meta.ui`` is ``ui_meta`` (anything: a malformed one grants nothing)."""
    ui = ui_meta if isinstance(ui_meta, dict) else {}
    csp, permissions = ui.get("csp"), ui.get("permissions")
    policy = Policy(requested_csp=csp, requested_permissions=permissions)
    if isinstance(csp, dict):
        for key in CSP_KEYS:
            entries = csp.get(key)
            if entries is None:
                continue
            if not isinstance(entries, list):
                policy.dropped.append(Dropped(key, entries, "not a list"))
                continue
            kept: list[Source] = []
            for entry in entries:
                source, reason = parse_source(entry)
                if source is None:
                    policy.dropped.append(Dropped(key, entry, reason or "not an origin"))
                elif source not in kept:
                    kept.append(source)
            policy.sources[key] = tuple(kept)
    if isinstance(permissions, dict):
        granted = []
        for name, value in permissions.items():
            if name not in PERMISSIONS:
                policy.dropped.append(Dropped("permissions", name, "not a permission the extension defines"))
            elif not isinstance(value, dict):
                policy.dropped.append(Dropped("permissions", name, "its value is not an object ({})"))
            else:
                granted.append(name)
        policy.permissions = tuple(granted)
    elif permissions is not None:
        policy.dropped.append(Dropped("permissions", permissions, "not an object"))
    return policy
