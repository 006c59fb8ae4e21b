"""What a server's certificate says, read with ``cryptography`` (the package joserfc brings): who it is for, who
issued it, the names it covers and when it is valid. Pure: bytes in, facts out."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass, field

from cryptography import x509
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class CertFacts:
    """The facts of one certificate a person needs to decide whether to trust it."""

    subject: str  #: its common name (or the whole subject when it has none)
    issuer: str  #: the issuer's common name (or the whole issuer)
    names: list[str] = field(default_factory=list)  #: the DNS names and IP addresses of its subjectAltName
    not_before: datetime.datetime | None = None
    not_after: datetime.datetime | None = None
    self_signed: bool = False  #: its issuer is its subject

    def covers(self, host: str) -> bool:
        """Whether the certificate names ``host`` (an IP address exactly, a DNS name exactly or by a wildcard
        for one label), as TLS clients check it (RFC 6125; no common-name fallback)."""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = None
        for name in self.names:
            if address is not None:
                if name == str(address):
                    return True
                continue
            name, wanted = name.lower(), host.lower().rstrip(".")
            if name == wanted:
                return True
            if name.startswith("*.") and "." in wanted and wanted.split(".", 1)[1] == name[2:]:
                return True
        return False

    def describe(self) -> str:
        """One clause: ``CN=..., issued by ..., for a, b, valid until 2027-01-02``."""
        issued = "self-signed" if self.self_signed else f"issued by {self.issuer}"
        names = f", for {', '.join(self.names)}" if self.names else ", naming no host (no subjectAltName)"
        until = f", valid until {self.not_after:%Y-%m-%d}" if self.not_after else ""
        return f"certificate {self.subject} ({issued}{names}{until})"


def facts(der: bytes) -> CertFacts | None:
    """The facts of a DER certificate, or None for bytes that are not one."""
    try:
        cert = x509.load_der_x509_certificate(der)
    except ValueError:
        return None
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = [*san.get_values_for_type(x509.DNSName), *(str(a) for a in san.get_values_for_type(x509.IPAddress))]
    except x509.ExtensionNotFound:
        names = []
    return CertFacts(subject=_common_name(cert.subject), issuer=_common_name(cert.issuer), names=names,
                     not_before=cert.not_valid_before_utc, not_after=cert.not_valid_after_utc,
                     self_signed=cert.subject == cert.issuer)


def _common_name(name: x509.Name) -> str:
    common = name.get_attributes_for_oid(NameOID.COMMON_NAME)
    if common:
        return f"CN={common[0].value!s}"
    return name.rfc4514_string() or "(no name)"
