"""The ``tls`` step of an https (or wss) URL: the TLS handshake, and the server's certificate judged as the
transports judge it.

The handshake is made with :func:`inspector.core.transports.tls.tls_context`, the settings every https
connection of the inspector uses (certifi's CAs, plus ``--ca-file``), always verifying: under ``--insecure`` the
step still says what is wrong with the certificate (as a warning: the session works without verifying it). When
verification fails, the certificate is fetched once more without verifying it, only to read what it says (its
names, its issuer, its dates), so the sentence can say *why* it is not trusted: self-signed, issued by a CA this
computer does not know, for another host name, expired or not valid yet.
"""

from __future__ import annotations

import asyncio
import datetime
import ssl

from inspector.core.doctor.certificates import CertFacts, facts
from inspector.core.doctor.model import Step, failed, passed, skipped, warning
from inspector.core.doctor.network import Where
from inspector.core.transports.tls import CaFileError, tls_context
from inspector.core.waiting import wait_for

#: A certificate that ends within this many days is a warning: renewing it is due.
EXPIRY_WARNING_DAYS = 14
#: OpenSSL's verification codes (``SSLCertVerificationError.verify_code``) the step explains.
NOT_YET_VALID, EXPIRED = 9, 10
SELF_SIGNED, SELF_SIGNED_IN_CHAIN, NO_LOCAL_ISSUER, CANNOT_VERIFY_LEAF = 18, 19, 20, 21
HOSTNAME_MISMATCH, IP_MISMATCH = 62, 64


def trust_fix(place: Where) -> str:
    return (f"Trust it with --ca-file FILE, a PEM file of the server's certificate or of the CA that issued it "
            f"(openssl s_client -connect {place.hostport} -showcerts prints them), or, for a test server only, "
            "with --insecure.")


async def tls_step(place: Where, timeout: float, *, ca_file: str | None, insecure: bool) -> Step:
    """``tls``: the handshake with the server's certificate verified (skipped for http:// and ws://)."""
    if not place.secure:
        return skipped("tls", "the URL is plain http (or ws): there is no TLS to check")
    address = (place.reachable or place.addresses or [place.host])[0]
    try:
        context = tls_context(ca_file)
    except CaFileError as exc:
        return failed("tls", str(exc), "Give --ca-file a PEM file of certificates.")
    trusted_by = f"this computer's CAs and --ca-file {ca_file}" if ca_file else "the CAs mcp-inspector trusts"
    try:
        version, der = await _handshake(address, place, timeout, context)
    except ssl.SSLCertVerificationError as exc:
        return await _untrusted(place, address, timeout, exc, insecure)
    except ssl.SSLError as exc:
        return _not_tls(place, exc)
    except (ConnectionResetError, asyncio.IncompleteReadError, EOFError):
        return _not_tls(place, None)
    except TimeoutError:
        return failed("tls", f"the TLS handshake with {place.hostport} did not finish within {timeout:g} s",
                      "Check that this port serves https: a plain-HTTP port waits for a request instead (try "
                      "http://).")
    except OSError as exc:
        return failed("tls", f"the TLS handshake with {place.hostport} failed: {exc.strerror or exc}",
                      "Check the host and port in the URL.")
    cert = facts(der) if der else None
    described = cert.describe() if cert else "a certificate"
    detail = f"{version} with {described}, trusted by {trusted_by}"
    days = _days_left(cert)
    if days is not None and days < EXPIRY_WARNING_DAYS:
        return warning("tls", f"{detail}; it expires in {days} day{'s' if days != 1 else ''}",
                       "Renew the server's certificate before it expires.")
    if insecure:
        detail += " (so --insecure is not needed here)"
    return passed("tls", detail)


async def _handshake(address: str, place: Where, timeout: float, context: ssl.SSLContext) -> tuple[str, bytes]:
    """The TLS version and the server's certificate (DER) of one handshake with ``address``."""
    _, writer = await wait_for(
        asyncio.open_connection(address, place.port, ssl=context, server_hostname=place.host,
                                ssl_handshake_timeout=timeout), timeout)
    try:
        tls = writer.get_extra_info("ssl_object")
        version = (tls.version() if tls is not None else None) or "TLS"
        der = tls.getpeercert(binary_form=True) if tls is not None else None
        return version, der or b""
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except (OSError, ssl.SSLError):
            pass  # a server that drops the connection at once after the handshake changes nothing


async def _untrusted(place: Where, address: str, timeout: float, error: ssl.SSLCertVerificationError,
                     insecure: bool) -> Step:
    """The certificate was refused: fetch it unverified to say why, as a failure (or, under --insecure, a
    warning: the session goes on without verifying)."""
    cert: CertFacts | None = None
    try:
        _, der = await _handshake(address, place, timeout, tls_context(insecure=True))
        cert = facts(der) if der else None
    except (OSError, ssl.SSLError, TimeoutError):
        pass  # the first handshake's error is all there is to say then
    detail, fix = _why_untrusted(place, error, cert)
    if insecure:
        return warning("tls", f"not verified (--insecure): {detail}",
                       "Trust the certificate with --ca-file instead of --insecure, so that the connection is "
                       "verified.")
    return failed("tls", detail, fix)


def _why_untrusted(place: Where, error: ssl.SSLCertVerificationError, cert: CertFacts | None) -> tuple[str, str]:
    code = error.verify_code
    described = cert.describe() if cert else "its certificate"
    if code in (HOSTNAME_MISMATCH, IP_MISMATCH) or (cert is not None and not cert.covers(place.host)
                                                    and code not in (EXPIRED, NOT_YET_VALID)):
        names = ", ".join(cert.names) if cert and cert.names else "no host name"
        return (f"the server's {described} is not for {place.host}: it names {names}",
                f"Use a URL with a host name the certificate names ({names}), or have the certificate reissued "
                f"with {place.host} in its subjectAltName.")
    if code == EXPIRED:
        until = f" on {cert.not_after:%Y-%m-%d}" if cert and cert.not_after else ""
        return (f"the server's {described} expired{until}",
                "Renew the server's certificate (or, if it is new, check this computer's clock).")
    if code == NOT_YET_VALID:
        since = f" until {cert.not_before:%Y-%m-%d %H:%M} UTC" if cert and cert.not_before else ""
        return (f"the server's {described} is not valid yet{since}",
                "Check this computer's clock (and the server's), or wait until the certificate is valid.")
    untrusted = code in (SELF_SIGNED, SELF_SIGNED_IN_CHAIN, NO_LOCAL_ISSUER, CANNOT_VERIFY_LEAF) or \
        (cert is not None and cert.self_signed)
    # OpenSSL reports an untrusted issuer before the dates, but an expired certificate stays refused once trusted:
    # the dates come first, so that the fix is not to trust a certificate that has expired
    dated = _out_of_date(cert) if untrusted else None
    if dated is not None:
        why = "it is self-signed" if code == SELF_SIGNED or (cert is not None and cert.self_signed) else \
            f"it was issued by {cert.issuer if cert else 'a CA'}, a CA this computer does not trust"
        trust = trust_fix(place)
        return (f"the server's {described} {dated}; {why}, so it is not trusted either",
                f"Renew the server's certificate (or, if it is new, check this computer's clock); then "
                f"{trust[0].lower()}{trust[1:]}")
    if code == SELF_SIGNED or (cert is not None and cert.self_signed):
        return f"the server's {described} is self-signed, and this computer does not trust it", trust_fix(place)
    if code in (SELF_SIGNED_IN_CHAIN, NO_LOCAL_ISSUER, CANNOT_VERIFY_LEAF):
        issuer = cert.issuer if cert else "a CA"
        return (f"the server's {described} was issued by {issuer}, a CA this computer does not trust (a private "
                "or corporate CA, or a chain the server sends incomplete)", trust_fix(place))
    return f"the server's {described} was refused: {error.verify_message}", trust_fix(place)


def _not_tls(place: Where, error: ssl.SSLError | None) -> Step:
    text = str(error or "").lower()
    if error is None or isinstance(error, ssl.SSLEOFError) or "wrong version number" in text \
            or "record layer failure" in text or "packet length" in text or "http request" in text:
        how = "it hung up on the TLS handshake" if error is None or isinstance(error, ssl.SSLEOFError) else \
            "it answered the TLS handshake with something else"
        return failed("tls", f"the server at {place.hostport} does not speak TLS on this port: {how}",
                      "Use http:// for this port, or the port where the server serves https.")
    reason = getattr(error, "reason", None) or str(error)
    return failed("tls", f"the TLS handshake with {place.hostport} failed: {reason}",
                  "The server's TLS settings and this computer's do not agree (a protocol version or cipher): "
                  "check the server's TLS configuration.")


def _out_of_date(cert: CertFacts | None) -> str | None:
    """``expired on DATE`` or ``is not valid yet until DATE`` for a certificate outside its dates now, else None."""
    now = datetime.datetime.now(datetime.UTC)
    if cert is not None and cert.not_after is not None and cert.not_after < now:
        return f"expired on {cert.not_after:%Y-%m-%d}"
    if cert is not None and cert.not_before is not None and cert.not_before > now:
        return f"is not valid yet until {cert.not_before:%Y-%m-%d %H:%M} UTC"
    return None


def _days_left(cert: CertFacts | None) -> int | None:
    if cert is None or cert.not_after is None:
        return None
    return (cert.not_after - datetime.datetime.now(datetime.UTC)).days
