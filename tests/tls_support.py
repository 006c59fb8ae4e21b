"""Certificates made for a test, and https servers that use them (import as ``tls_support``).

:func:`make_certificate` writes a PEM certificate and key for 127.0.0.1 and localhost (self-signed, or issued by
a CA it makes too; expired, or for other names, on request) with ``cryptography``, which the inspector already
depends on (through joserfc). :func:`https_server` runs tests/http/servers/tls_http_server.py, a well-behaved
Streamable HTTP server, with such a certificate on 127.0.0.1; :func:`probe_http_server` the plain-HTTP probe of
the option tests (``/<tag>/mcp`` Streamable HTTP, ``/<tag>/sse`` HTTP+SSE, 404 elsewhere). Every server binds
127.0.0.1 on a port the kernel picks and is killed with its process group afterwards.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from helpers import kill_group, wait_until

TESTS = Path(__file__).resolve().parent
TLS_SERVER = TESTS / "http" / "servers" / "tls_http_server.py"
PROBE_SERVER = TESTS / "cli" / "option_effects" / "servers" / "probe_http_server.py"
#: Bound on a server writing its port (a Python start-up on a loaded machine).
STARTUP_TIMEOUT = 30.0


@dataclass(frozen=True)
class Certificate:
    cert: Path  #: the server's certificate (PEM); for a CA-issued one, the CA's is ``ca``
    key: Path
    ca: Path | None = None  #: the CA certificate that issued it (None: self-signed)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_certificate(folder: Path, *, names: tuple[str, ...] = ("127.0.0.1", "localhost"), expired: bool = False,
                     with_ca: bool = False, common: str = "doctor test server") -> Certificate:
    """A server certificate for ``names`` (IP addresses and DNS names), self-signed unless ``with_ca``; valid
    from an hour ago for 90 days, or, when ``expired``, for a day that ended yesterday."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)
    start, end = (now - datetime.timedelta(days=3), now - datetime.timedelta(days=2)) if expired else \
        (now - datetime.timedelta(hours=1), now + datetime.timedelta(days=90))
    key = ec.generate_private_key(ec.SECP256R1())
    alt = [x509.IPAddress(ipaddress.ip_address(n)) if n.replace(".", "").isdigit() or ":" in n else x509.DNSName(n)
           for n in names]
    issuer_name, issuer_key, ca_path = _name(common), key, None
    if with_ca:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_cert = (x509.CertificateBuilder().subject_name(_name("doctor test CA")).issuer_name(_name("doctor test CA"))
                   .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=91))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(ca_key, hashes.SHA256()))
        ca_path = folder / "ca.pem"
        ca_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
        issuer_name, issuer_key = ca_cert.subject, ca_key
    cert = (x509.CertificateBuilder().subject_name(_name(common)).issuer_name(issuer_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=not with_ca, path_length=None), critical=True)
            .sign(issuer_key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return Certificate(cert_path, key_path, ca_path)


def _read_port(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@contextmanager
def serving(argv: list[str], port_file: Path) -> Iterator[int]:
    """Run a server that writes its port to ``port_file``; yield the port; kill its process group after."""
    port_file.unlink(missing_ok=True)
    with (port_file.parent / f"{port_file.stem}.log").open("wb") as log:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_until(lambda: _read_port(port_file) is not None or process.poll() is not None, STARTUP_TIMEOUT,
                   f"{Path(argv[1]).name} to write its port")
        port = _read_port(port_file)
        assert port is not None, f"{argv[1]} exited with {process.returncode} before listening"
        yield port
    finally:
        kill_group(process.pid)
        process.wait(timeout=10)


@contextmanager
def https_server(folder: Path, certificate: Certificate) -> Iterator[int]:
    """The https MCP server (POST to any path) with ``certificate``, on 127.0.0.1; yields its port."""
    folder.mkdir(parents=True, exist_ok=True)
    with serving([sys.executable, str(TLS_SERVER), str(certificate.cert), str(certificate.key),
                  str(folder / "https-port")], folder / "https-port") as port:
        yield port


@contextmanager
def probe_http_server(folder: Path) -> Iterator[int]:
    """The plain-HTTP probe server of the option tests on 127.0.0.1; yields its port."""
    folder.mkdir(parents=True, exist_ok=True)
    with serving([sys.executable, str(PROBE_SERVER), str(folder / "probe-port"), str(folder)],
                 folder / "probe-port") as port:
        yield port


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on: the kernel's pick for port 0, closed again at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def resolver_stays_local() -> str | None:
    """None when looking up a name that does not exist sends nothing off this computer (hosts files only, or a
    resolver on 127.0.0.0/8 or ::1 that answers itself), else why a test of such a name must be skipped."""
    try:
        nsswitch = Path("/etc/nsswitch.conf").read_text(encoding="utf-8", errors="replace")
    except OSError:
        nsswitch = "hosts: files dns"
    hosts = next((line.split(":", 1)[1].split() for line in nsswitch.splitlines()
                  if line.strip().startswith("hosts:")), ["files", "dns"])
    if "dns" not in hosts and "resolve" not in hosts:
        return None
    try:
        resolv = Path("/etc/resolv.conf").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    servers = [line.split()[1] for line in resolv.splitlines()
               if line.startswith("nameserver") and len(line.split()) > 1]
    remote = [s for s in servers if not ipaddress.ip_address(s.split("%")[0]).is_loopback]
    if remote:
        return (f"this machine's resolver asks {', '.join(remote)} (off 127.0.0.0/8) about unknown names; a lookup of "
                "no-such-host.invalid would send traffic off this computer")
    if servers:
        return ("this machine's resolver is a local stub (systemd-resolved or the like) that may forward unknown "
                "names to the network")
    return None
