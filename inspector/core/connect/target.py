"""What to connect to: one model for every way a server is named, and the one factory of its transport.

A :class:`Target` is either a command to run over stdio (``argv``, ``cwd``, environment overrides) or a URL
(a transport name from :func:`inspector.core.transports.registry.url_transports`: ``auto``, ``streamable-http``,
``sse`` or a plug-in's; extra headers; a bearer token; an Origin), plus what any session needs: the handshake
mode, the protocol revision to ask for and the timeouts.

It is made from the command line (:meth:`Target.from_args` for ``record`` and ``replay``,
:meth:`Target.from_window_args` for the window's own ``--url`` and command), from a saved profile
(:meth:`Target.from_profile`), from a client config's server entry (:meth:`Target.from_config_entry`) and from a
capture's header (:meth:`Target.from_capture_header`); :meth:`Target.to_capture_target` gives the header's
``"target"`` object back, secrets redacted unless ``redact`` is off. :func:`make_transport` is the only place a
transport is made for a target.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.redaction import REDACTED, SECRET_HEADERS, is_secret_name
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT
from inspector.core.text import safe
from inspector.core.transports.base import Transport, TransportError
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.framing import DEFAULT_MAX_LINE_BYTES

if TYPE_CHECKING:  # httpx is imported only when a URL is connected to; profiles only when one is used
    from inspector.core.auth.authorize import Authorizer
    from inspector.core.auth.flow import OAuthClient
    from inspector.core.auth.model import OAuthOptions
    from inspector.core.clients.profiles import ServerProfile
    from inspector.core.transports.http_common import HttpOptions

#: Default bound on establishing a TCP (and TLS) connection to a URL (the HTTP transports' own default).
DEFAULT_CONNECT_TIMEOUT = 10.0
#: The HTTP layer's own bound on a response is a backstop this much beyond the session's timeout: the
#: session's "no response to X within S" is the sentence users get.
HTTP_BACKSTOP = 5.0
#: The transport name of a command run over stdio, as capture headers write it.
STDIO = "stdio"
#: The sentence for ``--ca-file`` or ``--insecure`` given with a command instead of a URL.
TLS_FOR_URLS = "--ca-file and --insecure are for an https server (--url), not for a command run over stdio"


class InputError(ValueError):
    """The user's input (an option, a messages file) is unusable; the message says why in one sentence."""


@dataclass
class Target:
    """A server to connect to: a command (``argv`` set, ``url`` empty) or a URL."""

    name: str = ""  #: what the window calls the session (a profile's name, the program, the URL)
    argv: list[str] = field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)  #: overrides of the inherited environment
    url: str = ""
    #: for URLs: auto, streamable-http, sse, or a plug-in's name (``stdio`` for a command named by a capture)
    transport: str = "auto"
    headers: dict[str, str] = field(default_factory=dict)  #: extra HTTP headers, sent on every request
    bearer: str | None = None  #: sent as ``Authorization: Bearer ...``
    origin: str | None = None  #: an ``Origin`` header, to test a server's DNS-rebinding protection
    handshake: str = "auto"  #: auto, legacy, modern or none (see :meth:`Session.handshake`)
    protocol_version: str | None = None  #: the revision to ask for (None: the session's default)
    timeout: float = DEFAULT_REQUEST_TIMEOUT  #: how long the handshake and each request are waited for
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    #: the largest message read whole (a longer line is a framing error that keeps its head and tail)
    max_message: int = DEFAULT_MAX_LINE_BYTES
    redact: bool = True  #: secrets out of the capture (its header, the spawned event, HTTP events)
    #: the user named it (a profile): the window keeps that name instead of the one the server reports
    named_by_user: bool = False
    #: for URLs: authorize with OAuth on 401 (``--oauth`` and its options); None: a 401 is an error
    oauth: OAuthOptions | None = None
    #: folders answered to ``roots/list`` (a profile's ``roots``)
    roots: list[str] = field(default_factory=list)
    #: for https URLs: a PEM file of certificates trusted besides the usual ones (``--ca-file``)
    ca_file: str | None = None
    #: for https URLs: certificates are not verified (``--insecure``; the capture header says so)
    insecure: bool = False

    @property
    def is_http(self) -> bool:
        """A URL to connect to (else a command to run over stdio)."""
        return bool(self.url)

    def describe(self) -> str:
        """One line: the URL, or the command line."""
        return self.url if self.url else " ".join(self.argv)

    # -- from what the user gave -------------------------------------------------------------------------

    @classmethod
    def from_args(cls, args: argparse.Namespace, command: list[str]) -> Target:
        """The target of ``record`` or ``replay``: ``--url`` (with ``-H``, ``--bearer``, ``--bearer-env``,
        ``--origin``, ``--transport``, ``--connect-timeout``) or the ``command`` after ``--`` (with ``--cwd``,
        ``--env``), or the entry ``--config`` and ``--server`` name (with the same options on top);
        ``--timeout``, ``--max-message``, ``--no-redact`` and, where the command has them, ``--handshake`` and
        ``--protocol-version``. Raises InputError with a sentence."""
        env = parse_env(args.env)
        common: dict[str, Any] = {
            "handshake": getattr(args, "handshake", "auto"),
            "protocol_version": getattr(args, "protocol_version", None),
            "timeout": args.timeout,
            "max_message": args.max_message,
            "redact": not args.no_redact,
        }
        config = getattr(args, "config", None)
        if config is not None or getattr(args, "server", None):
            if args.url or command:
                raise InputError("--config names the server: leave out --url and the command after --")
            chosen = cls.from_config_file(config, getattr(args, "server", None))
            chosen = replace(chosen, env={**chosen.env, **env}, cwd=args.cwd or chosen.cwd)
            if chosen.url:  # the options that reach a URL apply to the config's URL as to --url's
                chosen = chosen.with_url_args(args)
            else:
                no_tls_options(args)
            return replace(chosen, **common)
        if not args.url:
            no_tls_options(args)
            return cls(name=Path(command[0]).name if command else "", argv=list(command), cwd=args.cwd, env=env,
                       **common)
        _check_url(args.url)
        return cls(name=args.url, url=args.url, **common).with_url_args(args)

    def with_url_args(self, args: argparse.Namespace) -> Target:
        """This URL target (a client config's, a capture's) with what the command line says of a URL on top:
        ``-H`` headers over its own, ``--bearer`` or ``--bearer-env``, ``--origin``, ``--connect-timeout``,
        ``--oauth`` and its options, ``--ca-file`` or ``--insecure``, and ``--transport`` unless it is ``auto``.
        Raises InputError."""
        ca_file, insecure = tls_from_args(getattr(args, "ca_file", None), getattr(args, "insecure", False))
        return replace(self, headers={**self.headers, **_parse_headers(args.header)},
                       bearer=_bearer_of(args) or self.bearer, origin=args.origin or self.origin,
                       connect_timeout=args.connect_timeout, oauth=oauth_from_args(args) or self.oauth,
                       transport=self.transport if args.transport == "auto" else args.transport,
                       ca_file=ca_file or self.ca_file, insecure=insecure or self.insecure)

    @classmethod
    def from_window_args(cls, args: argparse.Namespace, command: list[str]) -> Target | None:
        """The session the window opens at start: the ``command`` after ``--``, else ``--url`` (with
        ``--transport``, ``-H``, ``--ca-file`` and ``--insecure``), waiting ``--timeout`` when given (``inf``:
        none); None when neither was given; ``--oauth`` signs in to the URL with OAuth on 401. Raises InputError
        with a sentence."""
        timeout = getattr(args, "gui_timeout", None)
        common: dict[str, Any] = {"timeout": timeout} if timeout is not None else {}
        ca_file, insecure = tls_from_args(getattr(args, "gui_ca_file", None), getattr(args, "gui_insecure", False))
        tls: dict[str, Any] = {"ca_file": ca_file, "insecure": insecure} if ca_file or insecure else {}
        if getattr(args, "gui_config", None) is not None or getattr(args, "gui_server", None):
            if command or args.gui_url:
                raise InputError("--config names the server: leave out --url and the command after --")
            chosen = replace(cls.from_config_file(args.gui_config, args.gui_server), **common)
            if tls and not chosen.url:
                raise InputError(TLS_FOR_URLS)
            return replace(chosen, **tls)
        if tls and not args.gui_url:
            raise InputError(TLS_FOR_URLS)
        if command:
            return cls(name=Path(command[0]).name, argv=list(command), **common)
        if not args.gui_url:
            return None
        _check_url(args.gui_url)
        common.update(tls)
        oauth = None
        if getattr(args, "gui_oauth", False):  # the window signs in with the system browser
            from inspector.core.auth.model import OAuthOptions

            oauth = OAuthOptions()
        return cls(name=args.gui_url, url=args.gui_url, transport=args.gui_transport,
                   headers=_parse_headers(args.gui_headers), oauth=oauth, **common)

    @classmethod
    def from_profile(cls, profile: ServerProfile) -> Target:
        """A saved profile's server; the session keeps the profile's name and timeout."""
        if profile.kind == "http":
            oauth = None
            if profile.oauth:
                oauth = oauth_of_profile(profile)
            return cls(name=profile.name, url=profile.url, transport=profile.transport, headers=dict(profile.headers),
                       timeout=profile.timeout, named_by_user=True, roots=list(profile.roots), oauth=oauth)
        return cls(name=profile.name, argv=profile.argv(), cwd=profile.cwd, env=dict(profile.env),
                   timeout=profile.timeout, named_by_user=True, roots=list(profile.roots))

    @classmethod
    def from_config_file(cls, path: Path | None, server: str | None) -> Target:
        """Server ``server`` of the client config at ``path`` (any format the import reads); the only server
        when ``server`` is None and there is one. Raises InputError with a sentence naming what there is."""
        from inspector.core.clients.configs import ConfigError, read_config

        if path is None:
            raise InputError("--server needs --config FILE: the client config the server is in")
        try:
            preview = read_config(path)
        except ConfigError as exc:
            raise InputError(str(exc)) from None
        names = [c.profile.name for c in preview.candidates]
        if server is None:
            if len(names) == 1:
                return cls.from_profile(preview.candidates[0].profile)
            raise InputError(f"{path} has {len(names)} servers; choose one with --server: {', '.join(names)}"
                             if names else f"{path} has no server the inspector can run")
        for candidate in preview.candidates:
            if candidate.profile.name == server:
                return cls.from_profile(candidate.profile)
        skipped = dict(preview.skipped)
        if server in skipped:
            raise InputError(f"the server {server!r} of {path} cannot be used: {skipped[server]}")
        import difflib

        close = difflib.get_close_matches(server, names, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; it has: {', '.join(names) or 'none'}"
        raise InputError(f"{path} has no server named {server!r}{hint}")

    @classmethod
    def from_config_entry(cls, name: str, entry: object) -> Target:
        """One server entry of a client's MCP config (``{"command", "args", "env", "cwd"}`` or ``{"url",
        "headers", "type"}``), read as an import reads it; raises ConfigError when it names no usable server."""
        from inspector.core.clients.configs import profile_of_entry  # not on the one-shot commands' path

        return cls.from_profile(profile_of_entry(name, entry))

    # -- capture headers ---------------------------------------------------------------------------------

    @classmethod
    def from_capture_header(cls, header: Mapping[str, Any], name: str = "") -> Target:
        """The server a capture was recorded against, as its header says (secrets possibly redacted: see
        :meth:`rerun_problem`). The recorded headers are kept as headers, without the User-Agent (the
        inspector sends its own)."""
        target = _mapping(header.get("target"))
        name = name or _text(header.get("name")) or ""
        transport = _text(target.get("transport")) or "auto"
        if transport == STDIO:
            argv = target.get("argv")
            return cls(name=name, argv=[str(a) for a in argv] if isinstance(argv, list) else [], transport=STDIO,
                       cwd=_text(target.get("cwd")),
                       env={str(k): str(v) for k, v in _mapping(target.get("env")).items()})
        return cls(name=name, url=_text(target.get("url")) or "", transport=transport,
                   headers={str(k): str(v) for k, v in _mapping(target.get("headers")).items()
                            if str(k).lower() != "user-agent"})

    def to_capture_target(self) -> dict[str, Any]:
        """The capture header's ``"target"`` object: what the transport made for this target says it
        connects to, secrets redacted unless ``redact`` is off (docs/capture-format.md)."""
        return make_transport(self).describe()

    def rerun_problem(self) -> str | None:
        """None when this target (read from a capture) can be run again as recorded, else why not."""
        if not self.is_http:
            if not self.argv:
                return ("the capture does not say which command was recorded" if self.transport == STDIO else
                        "the capture does not say which server was recorded")
            hidden = [shlex.join(self.argv)] if any(REDACTED in a for a in self.argv) else []
            hidden += [f"{k}={v}" for k, v in self.env.items() if REDACTED in v]
        else:
            hidden = ([self.url] if REDACTED in self.url else []) + \
                     [f"{k}: {v}" for k, v in self.sent_headers().items() if REDACTED in v]
        if hidden:
            return (f"the capture's target was saved with secrets redacted ({safe(', '.join(hidden))}), so it cannot "
                    "be rerun as recorded")
        return None

    def describe_lines(self) -> list[str]:
        """What would run, in lines a person checks before agreeing: the command line, the working directory
        and the environment overrides; or the URL, its transport and the headers."""
        if not self.is_http:
            return [safe(f"command: {shlex.join(self.argv)}"),
                    safe(f"working directory: {self.cwd or f'(not recorded: the current one, {os.getcwd()})'}"),
                    safe("environment overrides: " + (" ".join(f"{k}={v}" for k, v in self.env.items()) or "none"))]
        shown = self.sent_headers()
        return [safe(f"URL: {self.url} (transport {self.transport})"),
                safe("headers: " + ("; ".join(f"{k}: {v}" for k, v in shown.items()) or "none"))]

    # -- connecting --------------------------------------------------------------------------------------

    def http_options(self) -> HttpOptions:
        """The options a URL transport is made with."""
        from inspector.core.transports.http_common import HttpOptions

        # no timeout (inf): the HTTP layer waits as long too (the session can still cancel)
        response = None if math.isinf(self.timeout) else self.timeout + HTTP_BACKSTOP
        return HttpOptions(url=self.url, headers=dict(self.headers), bearer=self.bearer, origin=self.origin,
                           connect_timeout=self.connect_timeout, response_timeout=response,
                           max_message=self.max_message, redact=self.redact, ca_file=self.ca_file,
                           insecure=self.insecure)

    def command_options(self, *, secrets: bool = False) -> list[str]:
        """The options of an ``mcp-inspector`` command (``call``, ``read``, ``record``...) that reach this server
        as this target does: ``--url`` with its transport, headers, origin and ``--oauth`` options, or the command
        after ``--`` with its folder and environment; the handshake and revision when they are not the default.
        ``secrets``: also the bearer token, secret headers, environment values and the client secret (the window's
        own live session, copied by its user); otherwise those are left out (a history line, a saved note)."""
        words: list[str] = []
        if self.handshake != "auto":
            words += ["--handshake", self.handshake]
        if self.protocol_version:
            words += ["--protocol-version", self.protocol_version]
        if not self.url:
            if self.cwd:
                words += ["--cwd", self.cwd]
            for name, value in self.env.items():
                if secrets or not is_secret_name(name):
                    words += ["--env", f"{name}={value}"]
            return [*words, "--", *self.argv]
        words += ["--url", self.url]
        if self.transport not in ("", "auto"):
            words += ["--transport", self.transport]
        for name, value in self.headers.items():
            if secrets or (name.lower() not in SECRET_HEADERS and not is_secret_name(name)):
                words += ["-H", f"{name}: {value}"]
        if self.origin:
            words += ["--origin", self.origin]
        if self.ca_file:
            words += ["--ca-file", self.ca_file]
        if self.insecure:
            words.append("--insecure")
        if self.bearer and secrets:
            words += ["--bearer", self.bearer]
        oauth = self.oauth
        if oauth is not None:
            words.append("--oauth")
            if oauth.grant != "authorization-code":
                words += ["--oauth-grant", oauth.grant]
            given: tuple[tuple[str, str | None], ...] = (
                ("--client-id", oauth.client_id), ("--client-metadata-url", oauth.client_metadata_url),
                ("--scope", oauth.scope), ("--client-secret", oauth.client_secret if secrets else None),
                ("--client-key", oauth.client_key), ("--client-key-alg", oauth.client_key_alg),  # a key's path
                ("--assertion", oauth.assertion if secrets else None), ("--assertion-file", oauth.assertion_file),
                ("--id-token", oauth.id_token if secrets else None), ("--id-token-file", oauth.id_token_file),
                ("--idp-token-endpoint", oauth.idp_token_endpoint), ("--idp-client-id", oauth.idp_client_id),
                ("--idp-issuer", oauth.idp_issuer))
            for option, chosen in given:
                if chosen:
                    words += [option, chosen]
            if oauth.dpop:
                words.append("--dpop")
        return words

    def sent_headers(self) -> dict[str, str]:
        """The headers sent on every request to the URL, besides the inspector's User-Agent."""
        return {k: v for k, v in self.http_options().base_headers().items() if k.lower() != "user-agent"}


def tls_from_args(ca_file: str | None, insecure: bool) -> tuple[str | None, bool]:
    """``--ca-file FILE`` (as an absolute path, its certificates checked now) and ``--insecure``; raises
    InputError with a sentence for an unusable file, or for both at once."""
    if ca_file and insecure:
        raise InputError("give --ca-file or --insecure, not both: --insecure verifies no certificate at all")
    if not ca_file:
        return None, bool(insecure)
    from inspector.core.transports.tls import CaFileError, tls_context

    path = str(Path(ca_file).expanduser().absolute())
    try:
        tls_context(path)
    except CaFileError as exc:
        raise InputError(str(exc).replace(path, ca_file, 1)) from None
    return path, False


def no_tls_options(args: argparse.Namespace) -> None:
    """``--ca-file`` and ``--insecure`` reach https servers only: for a command after ``--`` they are a mistake."""
    if getattr(args, "ca_file", None) or getattr(args, "insecure", False):
        raise InputError(TLS_FOR_URLS)


def _bearer_of(args: argparse.Namespace) -> str | None:
    """``--bearer TOKEN``, or the value of ``--bearer-env VAR`` (which must be set); raises InputError."""
    if args.bearer_env:
        bearer = os.environ.get(args.bearer_env)
        if not bearer:
            raise InputError(f"--bearer-env {args.bearer_env}: that environment variable is not set or empty")
        return bearer
    token: str | None = args.bearer
    return token


def oauth_from_args(args: argparse.Namespace) -> OAuthOptions | None:
    """``--oauth`` and its options (cli/main.py ``add_oauth_options``) as OAuthOptions; None without
    ``--oauth`` (the client options alone imply it). Raises InputError with a sentence."""
    from inspector.core.auth.model import AUTHORIZE_MODES, OAuthOptions

    client_id = getattr(args, "client_id", None)
    metadata_url = getattr(args, "client_metadata_url", None)
    grant = getattr(args, "oauth_grant", None) or "authorization-code"
    if not (getattr(args, "oauth", False) or client_id or metadata_url or grant != "authorization-code"):
        return None
    mode = getattr(args, "oauth_authorize", None) or "browser"
    if mode not in AUTHORIZE_MODES:
        raise InputError(f"--oauth-authorize {mode!r} must be one of {', '.join(AUTHORIZE_MODES)}")
    secret = getattr(args, "client_secret", None)
    if secret and not client_id:
        raise InputError("--client-secret needs --client-id (the pre-registered client it belongs to)")
    if metadata_url and not metadata_url.startswith("https://"):
        raise InputError(f"--client-metadata-url {metadata_url!r} must be an https URL (a Client ID Metadata "
                         "Document is fetched by the authorization server)")
    options = OAuthOptions(authorize=mode, client_id=client_id, client_secret=secret, client_metadata_url=metadata_url,
                           scope=getattr(args, "scope", None), grant=grant,
                           client_key=_path_of(getattr(args, "client_key", None)),
                           client_key_alg=getattr(args, "client_key_alg", None),
                           assertion=getattr(args, "assertion", None),
                           assertion_file=_path_of(getattr(args, "assertion_file", None)),
                           id_token=getattr(args, "id_token", None),
                           id_token_file=_path_of(getattr(args, "id_token_file", None)),
                           idp_token_endpoint=getattr(args, "idp_token_endpoint", None),
                           idp_client_id=getattr(args, "idp_client_id", None),
                           idp_issuer=getattr(args, "idp_issuer", None), dpop=bool(getattr(args, "dpop", False)))
    problem = grant_problem(options)
    if problem:
        raise InputError(problem)
    return options


def oauth_of_profile(profile: ServerProfile) -> OAuthOptions:
    """A profile's OAuth settings as OAuthOptions: the client secret of a grant without a person from the keyring
    (or this process's memory), where the profile dialog put it; the files are read when they are used."""
    from inspector.core.auth.model import OAuthOptions

    client_id = profile.oauth_client_id or None
    if profile.oauth_grant == "authorization-code":
        return OAuthOptions(client_id=client_id, scope=profile.oauth_scope or None, dpop=profile.oauth_dpop)
    from inspector.core.auth.tokens import TokenStore

    secret = TokenStore().load_client_secret(profile.url, client_id) if client_id else None
    return OAuthOptions(client_id=client_id, client_secret=secret, scope=profile.oauth_scope or None,
                        grant=profile.oauth_grant, client_key=profile.oauth_client_key or None,
                        client_key_alg=profile.oauth_client_key_alg or None,
                        assertion_file=profile.oauth_assertion_file or None,
                        id_token_file=profile.oauth_id_token_file or None,
                        idp_token_endpoint=profile.oauth_idp_token_endpoint or None,
                        idp_issuer=profile.oauth_idp_issuer or None,
                        idp_client_id=profile.oauth_idp_client_id or None, dpop=profile.oauth_dpop)


def _path_of(path: str | None) -> str | None:
    """A file option as an absolute path: it is read later, maybe from another folder."""
    return str(Path(path).expanduser().absolute()) if path else None


def grant_problem(options: OAuthOptions) -> str | None:
    """What the grant of ``options`` still needs, or gets that it cannot use, as one sentence; None when
    nothing (the command line's and a profile's rule alike)."""
    grant = options.grant
    given = {"--client-key": options.client_key, "--client-key-alg": options.client_key_alg,
             "--assertion": options.assertion, "--assertion-file": options.assertion_file,
             "--id-token": options.id_token, "--id-token-file": options.id_token_file,
             "--idp-token-endpoint": options.idp_token_endpoint, "--idp-client-id": options.idp_client_id,
             "--idp-issuer": options.idp_issuer}
    allowed = {"authorization-code": set(), "client-credentials": {"--client-key", "--client-key-alg"},
               "jwt-bearer": {"--client-key", "--client-key-alg", "--assertion", "--assertion-file"},
               "id-jag": {"--client-key", "--client-key-alg", "--id-token", "--id-token-file", "--idp-token-endpoint",
                          "--idp-client-id", "--idp-issuer"}}[grant]
    stray = [name for name, value in given.items() if value and name not in allowed]
    if stray:
        return f"{stray[0]} is not used by --oauth-grant {grant}"
    if options.client_key_alg and not options.client_key:
        return "--client-key-alg needs --client-key (the key it signs with)"
    if grant == "authorization-code":
        return None
    if options.client_metadata_url:
        return f"--client-metadata-url is for a person's sign-in, not for --oauth-grant {grant}"
    if not options.client_id:
        return f"--oauth-grant {grant} needs --client-id: the client's id at the authorization server"
    if options.client_secret and options.client_key:
        return "give --client-secret or --client-key, not both: the client authenticates one way"
    if grant == "client-credentials" and not (options.client_secret or options.client_key):
        return "--oauth-grant client-credentials needs --client-secret or --client-key: how the client proves " \
               "who it is"
    if grant == "jwt-bearer" and bool(options.assertion) == bool(options.assertion_file):
        return "--oauth-grant jwt-bearer needs the JWT grant: --assertion JWT or --assertion-file FILE (one of them)"
    if grant == "id-jag":
        if bool(options.id_token) == bool(options.id_token_file):
            return "--oauth-grant id-jag needs the user's ID token: --id-token JWT or --id-token-file FILE (one " \
                   "of them)"
        if not (options.idp_token_endpoint or options.idp_issuer):
            return "--oauth-grant id-jag needs the IdP: --idp-token-endpoint URL (or --idp-issuer URL, whose " \
                   "metadata names it)"
        if not (options.client_secret or options.client_key):
            return "--oauth-grant id-jag needs --client-secret (or --client-key): the client authenticates " \
                   "when it presents the ID-JAG"
    return None


def make_transport(target: Target, *, authorizer: Callable[[OAuthOptions], Authorizer] | None = None) -> Transport:
    """The transport for ``target``, not started yet: a stdio process for a command, else the URL transport
    its name picks from the registry (built-ins and plug-ins), with an OAuth client when ``target.oauth`` asks
    for one. ``authorizer`` makes the OAuth client's authorization step instead of the headless default
    (``target.oauth.authorize``): the window gives its own (system browser, loopback listener, a pasted URL)
    without the core knowing of Qt. Raises TransportError (an unknown transport, a URL or header that cannot be
    used, no command) with a sentence."""
    if target.is_http:
        from inspector.core.transports.registry import create_url_transport

        options = target.http_options()
        if target.oauth is not None:
            from inspector.core.auth.flow import OAuthClient

            options.oauth = OAuthClient(target.url, target.oauth, authorizer=authorizer)
        return create_url_transport(target.transport, options)
    return StdioTransport(target.argv, cwd=target.cwd, env=target.env, max_line_bytes=target.max_message,
                          redact=target.redact)


def oauth_client_of(transport: Transport) -> OAuthClient | None:
    """The OAuth client :func:`make_transport` gave ``transport`` (its steps, tokens and log out), or None."""
    options = getattr(transport, "options", None)
    client = getattr(options, "oauth", None)
    from inspector.core.auth.flow import OAuthClient

    return client if isinstance(client, OAuthClient) else None


def parse_env(pairs: list[str]) -> dict[str, str]:
    """``--env NAME=VALUE`` options as a mapping; raises InputError for one that is not an assignment."""
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InputError(f"--env {pair!r} must look like NAME=VALUE")
        env[name] = value
    return env


def _parse_headers(texts: list[str]) -> dict[str, str]:
    from inspector.core.transports.http_common import parse_header

    headers = {}
    for text in texts:
        try:
            name, value = parse_header(text)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        headers[name] = value
    return headers


def _check_url(url: str) -> None:
    from inspector.core.transports.http_common import check_url

    try:
        check_url(url)
    except TransportError as exc:
        raise InputError(str(exc)) from None


def _mapping(value: object) -> Mapping[str, Any]:
    """A capture may come from anyone: what should be an object and is not counts as an empty one."""
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
