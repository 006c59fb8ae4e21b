"""Saved server profiles: how to start or reach a server, kept in ``profiles.json`` in the config folder.

A profile is either a command to run (``stdio``) or a URL to connect to (``http``, with a transport name from
:func:`inspector.core.transports.registry.url_transports`). Profiles hold the user's own environment values
and headers as they are (they are needed to connect); :meth:`ServerProfile.redacted` gives a copy for display.

The file is written atomically (a temporary file, then ``os.replace``) and readable by its owner only. A file
that cannot be read is never overwritten: it is kept aside as ``profiles.json.corrupt-<timestamp>`` and the
profiles that could still be read are kept.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspector.core.auth.model import GRANTS as OAUTH_GRANTS
from inspector.core.paths import APP_DIR
from inspector.core.redaction import (
    redact_argv,
    redact_env,
    redact_headers,
    redact_url,
)
from inspector.core.wire.json_types import json_type_phrase

FILE_NAME = "profiles.json"
FORMAT_VERSION = 1
KINDS = ("stdio", "http")

#: ``${input:id}``, ``${env:NAME}``, ``${workspaceFolder}``, ``${NAME:-default}``: left as text, never expanded.
PLACEHOLDER = re.compile(r"\$\{[^{}\s]+\}")


class ProfileError(Exception):
    """A profile or the profiles file is not usable; the message is a sentence for the user.

    ``salvaged`` holds the profiles that could still be read from a damaged file, and ``kept_aside`` the
    path the damaged file was moved to.
    """

    def __init__(self, message: str, *, salvaged: list[ServerProfile] | None = None,
                 kept_aside: Path | None = None) -> None:
        super().__init__(message)
        self.salvaged: list[ServerProfile] = salvaged or []
        self.kept_aside = kept_aside


def config_dir() -> Path:
    """The inspector's config folder: XDG_CONFIG_HOME (or ~/.config) on Linux, Application Support on macOS,
    APPDATA on Windows, each + ``mcp-inspector``. Not created here."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / APP_DIR


def _keep_placeholder(original: dict[str, str], redacted: dict[str, str]) -> dict[str, str]:
    """A value that is only a placeholder (``${input:token}``) is not a secret: show it."""
    return {k: (original[k] if PLACEHOLDER.fullmatch(original[k]) else v) for k, v in redacted.items()}


#: The text fields of a profile's grant without a person (paths, ids and URLs: no secret).
OAUTH_GRANT_FIELDS = ("oauth_grant", "oauth_client_key", "oauth_client_key_alg", "oauth_assertion_file",
                      "oauth_id_token_file", "oauth_idp_token_endpoint", "oauth_idp_issuer", "oauth_idp_client_id")

#: The default response timeout of a profile (the session's own default) and the largest one accepted.
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 24 * 3600.0


@dataclass
class ServerProfile:
    name: str
    kind: str  # "stdio" | "http"
    command: str = ""
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    transport: str = "auto"
    headers: dict[str, str] = field(default_factory=dict)
    source: str | None = None  # where it was imported from, if it was
    #: how long the window waits for the handshake and for each response (seconds; as ``record --timeout``)
    timeout: float = DEFAULT_TIMEOUT
    #: folders answered to the server's ``roots/list`` (as ``file://`` URIs); none by default
    roots: list[str] = field(default_factory=list)
    #: HTTP: on 401, sign in with OAuth 2.1 (the window: system browser and loopback listener)
    oauth: bool = False
    oauth_client_id: str = ""  #: a pre-registered OAuth client id ("": register or use a metadata document)
    oauth_scope: str = ""  #: the scopes to ask for ("": the server's challenge, else what it supports)
    #: how the token is got (inspector.core.auth.model.GRANTS); the client secret of a grant without a person is
    #: kept in the keyring (inspector.core.auth.tokens.TokenStore.save_client_secret), never in this file
    oauth_grant: str = "authorization-code"
    oauth_client_key: str = ""  #: the path of a PEM private key (private_key_jwt): the key itself is never copied
    oauth_client_key_alg: str = ""  #: its JWS algorithm ("": from the key)
    oauth_assertion_file: str = ""  #: jwt-bearer: the file holding the JWT grant, read at each token request
    oauth_id_token_file: str = ""  #: id-jag: the file holding the user's ID token
    oauth_idp_token_endpoint: str = ""  #: id-jag: the IdP's token endpoint
    oauth_idp_issuer: str = ""  #: id-jag: the IdP's issuer (its metadata names the token endpoint)
    oauth_idp_client_id: str = ""  #: id-jag: the client's id at the IdP
    oauth_dpop: bool = False  #: send DPoP proofs even when no server asks for them
    #: a tool baseline file (``mcp-inspector baseline save``): the window warns on connect when the tools drifted
    baseline: str = ""
    #: the agent seat (``mcp-inspector mcp``) returns this server's secrets as they are; by default it hides
    #: them in everything it returns (docs/agents.md)
    agent_sees_secrets: bool = False

    def argv(self) -> list[str]:
        """The command line of a stdio profile."""
        if self.kind != "stdio":
            raise ProfileError(f"The profile {self.name!r} connects to a URL; it has no command line.")
        return [self.command, *self.args]

    def summary(self) -> str:
        """One line: ``stdio: command args`` or ``http: url``."""
        if self.kind == "stdio":
            return "stdio: " + shlex.join(self.argv())
        transport = "" if self.transport == "auto" else f" ({self.transport})"
        return f"http: {self.url}{transport}"

    def redacted(self) -> ServerProfile:
        """A copy safe to show: secret-looking env values, headers, flags and URL credentials replaced."""
        return replace(
            self,
            args=redact_argv(list(self.args)),
            env=_keep_placeholder(self.env, redact_env(self.env)),
            url=redact_url(self.url) if self.url else self.url,
            headers=_keep_placeholder(self.headers, redact_headers(self.headers)),
        )

    def problem(self) -> str | None:
        """Why this profile cannot be used, as a sentence, or None."""
        if not self.name.strip():
            return "A profile needs a name."
        if self.kind not in KINDS:
            return f"The profile {self.name!r} has kind {self.kind!r}; it must be 'stdio' or 'http'."
        if self.kind == "stdio" and not self.command.strip():
            return f"The profile {self.name!r} runs a command, but the command is empty."
        if self.kind == "http" and not self.url.strip():
            return f"The profile {self.name!r} connects to a URL, but the URL is empty."
        if self.kind == "http" and not self.transport.strip():
            return f"The profile {self.name!r} has no transport name."
        if self.oauth_grant not in OAUTH_GRANTS:
            return f"The profile {self.name!r} has the OAuth grant {self.oauth_grant!r}; it must be one of " \
                   f"{', '.join(OAUTH_GRANTS)}."
        if not 0 < self.timeout <= MAX_TIMEOUT:
            return f"The profile {self.name!r} has a timeout of {self.timeout:g} s; it must be above 0 and at " \
                   f"most {MAX_TIMEOUT:g} s."
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "command": self.command,
            "args": list(self.args),
            "env": dict(self.env),
            "cwd": self.cwd,
            "url": self.url,
            "transport": self.transport,
            "headers": dict(self.headers),
            "source": self.source,
            "timeout": self.timeout,
            "roots": list(self.roots),
            "oauth": self.oauth,
            "oauth_client_id": self.oauth_client_id,
            "oauth_scope": self.oauth_scope,
            **{name: getattr(self, name) for name in OAUTH_GRANT_FIELDS},
            "oauth_dpop": self.oauth_dpop,
            "baseline": self.baseline,
            "agent_sees_secrets": self.agent_sees_secrets,
        }

    @classmethod
    def from_json(cls, data: object) -> ServerProfile:
        """Build a profile from :meth:`to_json` output; anything malformed raises ProfileError."""
        if not isinstance(data, dict):
            raise ProfileError(f"A profile must be a JSON object, not {json_type_phrase(data)}.")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ProfileError("A profile has no name (it must be a non-empty string).")
        where = f"The profile {name!r}"

        def text(key: str, default: str) -> str:
            value = data.get(key, default)
            if not isinstance(value, str):
                raise ProfileError(f"{where}: {key!r} must be a string, not {json_type_phrase(value)}.")
            return value

        def optional_text(key: str) -> str | None:
            return None if data.get(key) is None else text(key, "")

        def mapping(key: str) -> dict[str, str]:
            value = data.get(key, {})
            if not isinstance(value, dict):
                raise ProfileError(f"{where}: {key!r} must be an object of strings, not {json_type_phrase(value)}.")
            for k, v in value.items():
                if not isinstance(v, str):
                    raise ProfileError(f"{where}: {key}[{k!r}] must be a string, not {json_type_phrase(v)}.")
            return dict(value)

        timeout = data.get("timeout", DEFAULT_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise ProfileError(f"{where}: 'timeout' must be a number of seconds, not {json_type_phrase(timeout)}.")
        args = data.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ProfileError(f"{where}: 'args' must be a list of strings.")
        roots = data.get("roots", [])  # absent from files written before roots existed
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise ProfileError(f"{where}: 'roots' must be a list of folder paths (strings).")
        oauth = data.get("oauth", False)  # absent from files written before OAuth existed
        if not isinstance(oauth, bool):
            raise ProfileError(f"{where}: 'oauth' must be true or false, not {json_type_phrase(oauth)}.")
        dpop = data.get("oauth_dpop", False)
        if not isinstance(dpop, bool):
            raise ProfileError(f"{where}: 'oauth_dpop' must be true or false, not {json_type_phrase(dpop)}.")
        agent_sees_secrets = data.get("agent_sees_secrets", False)  # absent from files written before the seat
        if not isinstance(agent_sees_secrets, bool):
            raise ProfileError(f"{where}: 'agent_sees_secrets' must be true or false, not "
                               f"{json_type_phrase(agent_sees_secrets)}.")
        profile = cls(
            name=name,
            kind=text("kind", ""),
            command=text("command", ""),
            args=list(args),
            env=mapping("env"),
            cwd=optional_text("cwd"),
            url=text("url", ""),
            transport=text("transport", "auto"),
            headers=mapping("headers"),
            source=optional_text("source"),
            timeout=float(timeout),
            roots=list(roots),
            oauth=oauth,
            oauth_client_id=text("oauth_client_id", ""),
            oauth_scope=text("oauth_scope", ""),
            **{name: text(name, getattr(cls, name)) for name in OAUTH_GRANT_FIELDS},  # absent from older files
            oauth_dpop=dpop,
            baseline=text("baseline", ""),  # absent from files written before baselines existed
            agent_sees_secrets=agent_sees_secrets,
        )
        problem = profile.problem()
        if problem:
            raise ProfileError(problem)
        return profile


def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``... whichever is free."""
    taken = set(taken)
    if name not in taken:
        return name
    n = 2
    while f"{name} ({n})" in taken:
        n += 1
    return f"{name} ({n})"


class ProfileStore:
    """The profiles file. Every helper reads the file, changes it and writes it back, so it is always the truth."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else config_dir() / FILE_NAME

    # -- reading and writing ------------------------------------------------------------------------------

    def load(self) -> list[ServerProfile]:
        """The saved profiles; a missing file means none. A damaged file raises ProfileError after it was kept
        aside (and the profiles that could be read were saved back; they are in ``error.salvaged``)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ProfileError(f"{self.path} cannot be read: {exc.strerror or exc}.") from None
        salvaged: list[ServerProfile] = []
        problem: str | None
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            problem = "it is not UTF-8 text"
        except json.JSONDecodeError as exc:
            problem = f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        else:
            problem, salvaged = self._parse(data)
            if problem is None:
                return salvaged
        aside = self._keep_aside()
        message = f"{self.path} could not be read: {problem}. It was kept as {aside.name}"
        if salvaged:
            self.save(salvaged)
            message += f"; {len(salvaged)} profile{'s' if len(salvaged) != 1 else ''} could be recovered"
        raise ProfileError(message + ".", salvaged=salvaged, kept_aside=aside)

    @staticmethod
    def _parse(data: object) -> tuple[str | None, list[ServerProfile]]:
        """(problem or None, the profiles that are fine)."""
        if not isinstance(data, dict) or not isinstance(data.get("profiles"), list):
            return 'it should be an object with a "profiles" list', []
        profiles: list[ServerProfile] = []
        problems: list[str] = []
        for index, entry in enumerate(data["profiles"], 1):
            try:
                profile = ServerProfile.from_json(entry)
            except ProfileError as exc:
                problems.append(f"entry {index}: {str(exc).rstrip('.')}")
                continue
            if any(p.name == profile.name for p in profiles):
                problems.append(f"entry {index}: the name {profile.name!r} is used twice")
                profile.name = unique_name(profile.name, (p.name for p in profiles))
            profiles.append(profile)
        return ("; ".join(problems) if problems else None), profiles

    def _keep_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 2
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        os.replace(self.path, aside)
        return aside

    def save(self, profiles: Iterable[ServerProfile]) -> None:
        """Write all profiles atomically; names must be unique and every profile usable."""
        profiles = list(profiles)
        seen: set[str] = set()
        for profile in profiles:
            problem = profile.problem()
            if problem:
                raise ProfileError(problem)
            if profile.name in seen:
                raise ProfileError(f"Two profiles are named {profile.name!r}; names must be unique.")
            seen.add(profile.name)
        text = json.dumps({"version": FORMAT_VERSION, "profiles": [p.to_json() for p in profiles]},
                          indent=2, ensure_ascii=False) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        except OSError as exc:
            raise ProfileError(f"{self.path} cannot be written: {exc.strerror or exc}.") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp: readable by the owner only
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.path)
        except OSError as exc:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise ProfileError(f"{self.path} cannot be written: {exc.strerror or exc}.") from None

    # -- changes -----------------------------------------------------------------------------------------

    def add(self, profile: ServerProfile) -> ServerProfile:
        """Save a new profile; a name already in use gets `` (2)``, `` (3)``... Returns what was saved."""
        return self.add_many([profile])[0]

    def add_many(self, profiles: Iterable[ServerProfile]) -> list[ServerProfile]:
        """Save several new profiles in one write (an import); names are made unique as in :meth:`add`."""
        existing = self.load()
        added: list[ServerProfile] = []
        for profile in profiles:
            taken = [p.name for p in existing + added]
            added.append(replace(profile, name=unique_name(profile.name.strip(), taken)))
        self.save(existing + added)
        return added

    def update(self, name: str, profile: ServerProfile) -> ServerProfile:
        """Replace the profile called ``name`` (the new one may have another name, if that name is free)."""
        profiles = self.load()
        index = self._index(profiles, name)
        if profile.name != name and any(p.name == profile.name for p in profiles):
            raise ProfileError(f"A profile named {profile.name!r} already exists.")
        profiles[index] = profile
        self.save(profiles)
        return profile

    def rename(self, old: str, new: str) -> ServerProfile:
        new = new.strip()
        if not new:
            raise ProfileError("A profile needs a name.")
        profiles = self.load()
        return self.update(old, replace(profiles[self._index(profiles, old)], name=new))

    def remove(self, name: str) -> None:
        profiles = self.load()
        del profiles[self._index(profiles, name)]
        self.save(profiles)

    def get(self, name: str) -> ServerProfile:
        profiles = self.load()
        return profiles[self._index(profiles, name)]

    @staticmethod
    def _index(profiles: list[ServerProfile], name: str) -> int:
        for index, profile in enumerate(profiles):
            if profile.name == name:
                return index
        raise ProfileError(f"There is no profile named {name!r}.")
