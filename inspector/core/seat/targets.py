"""A seat tool's ``target`` (a command, a URL or a saved server's name) as the inspector's command-line options.

Every process the seat starts is one the agent named: the target's argv goes after ``--`` to the inspector's
own command, which execs it without a shell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.core.clients.configs import ConfigError, known_config_files, read_config
from inspector.core.clients.profiles import ProfileError, ProfileStore, ServerProfile

#: the JSON Schema of a target, shared by every tool that works on a server
TARGET_SCHEMA: dict[str, Any] = {
    "description": "the server to work on: a command to launch, a URL to connect to, or a saved server's name",
    "oneOf": [
        {"type": "object", "required": ["command"], "additionalProperties": False, "properties": {
            "command": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                        "description": "the server's argv, run without a shell"},
            "cwd": {"type": "string", "description": "its working directory"},
            "env": {"type": "object", "additionalProperties": {"type": "string"},
                    "description": "environment overrides"}}},
        {"type": "object", "required": ["url"], "additionalProperties": False, "properties": {
            "url": {"type": "string", "description": "the server's Streamable HTTP (or SSE) URL"},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}}}},
        {"type": "object", "required": ["server"], "additionalProperties": False, "properties": {
            "server": {"type": "string",
                       "description": "a saved profile's name, or a server named in a client's config"}}},
    ],
}


class TargetError(Exception):
    """A target that names no server the seat can find; its message is one sentence for the agent."""


def known_servers() -> list[dict[str, Any]]:
    """The saved profiles, then the servers of the clients' config files, each as a dict the agent can read
    (name, where it comes from, and its command or URL). Unreadable files are skipped."""
    found: list[dict[str, Any]] = []
    try:
        profiles = ProfileStore().load()
    except ProfileError:
        profiles = []
    for profile in profiles:
        found.append({"name": profile.name, "source": "profile", **_describe(profile)})
    for client, path in known_config_files():
        try:
            preview = read_config(path)
        except (ConfigError, OSError):
            continue
        for candidate in preview.candidates:
            found.append({"name": candidate.profile.name, "source": f"{client}: {path}",
                          **_describe(candidate.profile)})
    return found


def _describe(profile: ServerProfile) -> dict[str, Any]:
    if not profile.agent_sees_secrets:  # what the seat returns holds no secret, unless the profile says so
        profile = profile.redacted()
    if profile.kind == "http":
        return {"url": profile.url}
    return {"command": [profile.command, *profile.args]}


def _find(name: str) -> ServerProfile:
    try:
        profiles = ProfileStore().load()
    except ProfileError:
        profiles = []
    for profile in profiles:
        if profile.name == name:
            return profile
    for _client, path in known_config_files():
        try:
            preview = read_config(path)
        except (ConfigError, OSError):
            continue
        for candidate in preview.candidates:
            if candidate.profile.name == name:
                return candidate.profile
    raise TargetError(f"No saved profile or client config names a server {name!r}: list_servers shows the names.")


def resolve(target: dict[str, Any]) -> dict[str, Any]:
    """``target`` as a command (``command``, ``env``, ``cwd``) or a URL (``url``, ``headers``): a ``server`` name
    becomes the saved profile's or the client config's, with ``agent_sees_secrets`` when the profile lets the
    agent see its secrets. Raises TargetError for a name nothing knows."""
    if "server" not in target:
        return target
    profile = _find(target["server"])
    shown = {"agent_sees_secrets": True} if profile.agent_sees_secrets else {}
    if profile.kind == "http":
        return {"url": profile.url, "headers": profile.headers, **shown}
    return {"command": [profile.command, *profile.args], "env": profile.env,
            **({"cwd": profile.cwd} if profile.cwd else {}), **shown}


def target_options(target: dict[str, Any]) -> list[str]:
    """The inspector options (ending with ``-- ARGV`` for a command) that reach ``target``, already valid
    against :data:`TARGET_SCHEMA`. Raises TargetError for a ``server`` name nothing knows."""
    target = resolve(target)
    if "url" in target:
        options = ["--url", target["url"]]
        for name, value in (target.get("headers") or {}).items():
            options += ["-H", f"{name}: {value}"]
        return options
    options = []
    if target.get("cwd"):
        options += ["--cwd", str(Path(target["cwd"]))]
    for name, value in (target.get("env") or {}).items():
        options += ["--env", f"{name}={value}"]
    return [*options, "--", *target["command"]]
