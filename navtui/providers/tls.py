"""The TLS settings of the providers' HTTP clients: httpx's defaults, with the CA certificates loaded on the first
TLS connection instead of when the client is built.

httpx loads certifi's bundle (~150 certificates) into a client's SSL context as the client is built, whether or
not it ever speaks TLS: 0.8-1.2 MB of the process per client (measured in a bare interpreter: building the first
client costs 2.9 MB with the bundle, 1.7 MB without). A model server on ``http://127.0.0.1`` never speaks TLS.
``client_tls()`` verifies exactly as httpx does (certificates required, host names checked, ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` honoured, else certifi's bundle) and loads the certificates when a connection first wraps a socket
or a BIO with it.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
from typing import Any

_lock = threading.Lock()


class _LazyCAContext(ssl.SSLContext):
    """A client context that loads its CA certificates on first use."""

    _loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        with _lock:
            if self._loaded:
                return
            cafile = os.environ.get("SSL_CERT_FILE")
            capath = os.environ.get("SSL_CERT_DIR")
            if cafile:
                self.load_verify_locations(cafile=cafile)
            elif capath:
                self.load_verify_locations(capath=capath)
            else:
                import certifi

                self.load_verify_locations(cafile=certifi.where())
            self._loaded = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self._load()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self._load()
        return super().wrap_bio(*args, **kwargs)


def client_tls() -> ssl.SSLContext:
    """An SSL context for ``httpx.AsyncClient(verify=...)``: what ``verify=True`` gives, loaded lazily."""
    context = _LazyCAContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname, as create_default_context
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:  # as ssl.create_default_context
        context.keylog_filename = keylog
    return context
