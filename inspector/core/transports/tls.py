"""The TLS settings of every https connection the inspector makes (the transports, the OAuth flow, the HTTP
tap, the doctor): the certificate authorities httpx trusts by default, plus ``--ca-file``'s; or, with
``--insecure``, none."""

from __future__ import annotations

import ssl


class CaFileError(ValueError):
    """A ``--ca-file`` that cannot be used; ``str(exc)`` is one sentence naming the file."""


def tls_context(ca_file: str | None = None, *, insecure: bool = False) -> ssl.SSLContext:
    """The TLS settings of every https connection the inspector makes (the transports, the OAuth flow, the HTTP
    tap, the doctor): the certificate authorities httpx trusts by default (certifi's), plus those of ``ca_file``
    (a PEM file: a self-signed server certificate, or a private CA); with ``insecure``, no verification at all.
    Raises CaFileError with a sentence when ``ca_file`` cannot be read or holds no certificate."""
    if insecure:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    import certifi  # httpx's own dependency, and the CAs it trusts by default

    context = ssl.create_default_context(cafile=certifi.where())
    if ca_file:
        try:
            context.load_verify_locations(cafile=ca_file)
        except FileNotFoundError:
            raise CaFileError(f"--ca-file {ca_file}: no such file") from None
        except IsADirectoryError:
            raise CaFileError(f"--ca-file {ca_file} is a folder; give a PEM file of certificates") from None
        except (ssl.SSLError, ValueError):  # before OSError, which SSLError is a kind of
            raise CaFileError(f"--ca-file {ca_file} holds no PEM certificate (a file with -----BEGIN "
                              "CERTIFICATE----- blocks)") from None
        except OSError as exc:
            raise CaFileError(f"--ca-file {ca_file} cannot be read: {exc.strerror or exc}") from None
    return context
