"""A loopback port that refuses connections for as long as a test needs it."""

from __future__ import annotations

import socket
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def refusing_port() -> Iterator[int]:
    """A port on 127.0.0.1 bound but not listening: a connection is refused, and no server started meanwhile (a fake
    server of the same test included) can be given it, as it could a port bound and let go at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
