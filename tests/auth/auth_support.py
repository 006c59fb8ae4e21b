"""Helpers for the OAuth tests: the protected server (servers/oauth_server.py) as a subprocess on 127.0.0.1,
an in-process ``record`` against it, and what the server was sent.

A plain module (the fixtures are in conftest.py) so that test modules can import it by name.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import warm_python
from helpers import wait_until

from inspector.core.auth.model import OAuthOptions
from inspector.core.capture import read_capture
from inspector.core.connect.target import Target
from inspector.core.record.run import RecordOptions, RecordResult, record
from inspector.core.wire.events import Event, Kind

SERVER = Path(__file__).resolve().parent / "servers" / "oauth_server.py"
#: Bound on the server coming up (a Python start-up on a loaded machine).
STARTUP_TIMEOUT = 30.0
#: What a test run sends after the handshake: a listing and a call (the call is where step-up happens).
CALLS = [{"method": "tools/list"}, {"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}]


@dataclass
class AuthServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def _log(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def requests(self) -> list[dict[str, Any]]:
        """Every request the server got, in order (method, path, query, headers, form or body)."""
        return [entry for entry in self._log() if "issued" not in entry]

    def secrets(self) -> set[str]:
        """Every secret of the session, from both ends: codes, verifiers, states, tokens, client secrets,
        Authorization header values, assertions, ID tokens and ID-JAGs, DPoP proofs."""
        found: set[str] = set()
        for entry in self._log():
            found.update(v for v in entry.get("issued", {}).values() if v)
            for name in ("code", "code_verifier", "refresh_token", "client_secret", "assertion", "client_assertion",
                         "subject_token"):
                found.update([entry["form"][name]] if name in entry.get("form", {}) else [])
            if "state" in entry.get("query", {}):
                found.add(entry["query"]["state"])
            header = entry.get("headers", {}).get("authorization")
            if header:
                found.update({header, header.split(" ", 1)[-1]})
            found.update([entry["headers"]["dpop"]] if "dpop" in entry.get("headers", {}) else [])
        return {s for s in found if s}

    def paths(self) -> list[str]:
        return [f"{r['method']} {r['path']}" for r in self.requests()]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def start_server(directory: Path, *switches: str) -> AuthServer:
    directory.mkdir(parents=True, exist_ok=True)
    port_file, log = directory / "port", directory / "requests.jsonl"
    with (directory / "server.err").open("wb") as errors:
        process = subprocess.Popen(warm_python.command(SERVER, str(port_file), str(log), *switches),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                                   start_new_session=True)
    try:
        wait_until(lambda: port_file.exists() and port_file.read_text().strip().isdigit() or process.poll() is not None,
                   STARTUP_TIMEOUT, "the OAuth test server's port file")
        assert process.poll() is None, (directory / "server.err").read_text()
        port = int(port_file.read_text())
        wait_until(lambda: accepts(port), STARTUP_TIMEOUT, "the OAuth test server to accept connections")
    except BaseException:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        raise
    return AuthServer(process, port, log)


@dataclass
class Run:
    result: RecordResult
    events: list[Event]

    def steps(self) -> list[tuple[str, str]]:
        """(auth_step, outcome) of the flow's notes, in order."""
        return [(e.data["auth_step"], e.data["outcome"]) for e in self.events
                if e.kind == Kind.NOTE and "auth_step" in e.data]

    def auth_exchanges(self) -> list[str]:
        return [f"{e.data['auth_step']} {e.data['method']} {e.data['url'].split('?')[0]} {e.data.get('status')}"
                for e in self.events if e.kind == Kind.HTTP and "auth_step" in e.data]

    def texts(self) -> str:
        return "\n".join(str(e.data.get("text", "")) for e in self.events if e.kind == Kind.NOTE)


def record_with_oauth(server: AuthServer, out: Path, *, messages: list[dict[str, Any]] | None = None,
                      timeout: float = 20.0, **oauth: Any) -> Run:
    """One in-process ``record --url --oauth --oauth-authorize follow`` against ``server``."""
    options = OAuthOptions(**{"authorize": "follow", **oauth})
    target = Target(name=server.url, url=server.url, oauth=options, timeout=timeout, handshake="legacy")
    result = asyncio.run(record(RecordOptions(target=target, out=out, messages=list(CALLS if messages is None
                                                                                      else messages))))
    return Run(result, read_capture(out).events)


# -- keys and JWTs for the grants without a person --------------------------------------------------------------

@dataclass
class KeyPair:
    """An EC P-256 key of the test: ``private`` and ``public`` PEM files, and the joserfc key to sign with."""

    private: Path
    public: Path
    key: Any

    def mint(self, **claims: Any) -> str:
        """A JWT of ``claims`` signed with this key (``exp`` in 5 minutes, ``iat`` now, unless given)."""
        from joserfc import jwt

        now = int(time.time())
        return jwt.encode({"alg": "ES256", "typ": "JWT"}, {"iat": now, "exp": now + 300, **claims}, self.key)


def make_key(folder: Path, name: str = "key") -> KeyPair:
    from joserfc.jwk import ECKey

    key = ECKey.generate_key("P-256")
    folder.mkdir(parents=True, exist_ok=True)
    private, public = folder / f"{name}.pem", folder / f"{name}.pub.pem"
    private.write_bytes(key.as_pem(private=True))
    private.chmod(0o600)  # as a private key is kept (a world-readable one gets a warning)
    public.write_bytes(key.as_pem(private=False))
    return KeyPair(private, public, key)
