"""Inside the sandbox: the command's proxy on 127.0.0.1, forwarding to the allow-list proxy's UNIX socket outside.

Run by path with the sandbox's python (``python -I -S forwarder.py SOCKET -- ARGV...``), it

1. binds 127.0.0.1 on a free port in the sandbox's network namespace *first*, so
   the port is listening before the command can try it;
2. starts ``ARGV`` (``bash -c CMD``) as its child with ``HTTP_PROXY``,
   ``HTTPS_PROXY``, ``ALL_PROXY`` (and the lower-case forms) pointing at that
   port, and ``NO_PROXY`` naming loopback, so servers the command starts inside
   stay reachable directly;
3. forwards every connection it accepts to ``SOCKET`` byte for byte (the proxy
   outside decides what passes);
4. exits with the child's exit status (``128 + N`` for a signal) as soon as the
   child ends, so nothing of it outlives the command; SIGINT, SIGTERM and
   SIGHUP are left to the child, which the forwarder then follows.

It imports the standard library's C modules only (``_socket``, ``_thread``,
``_signal``, ``posix``, ``time``): ``socket``, ``threading``, ``signal`` and ``os`` would
add about 40 ms to every sandboxed command with a proxy (``python -I -S``
with these starts in about 12 ms here). The host side imports it too, for
:func:`forwarded_argv` and :func:`proxy_environment`.
"""

from __future__ import annotations

import _signal
import _socket
import _thread
import posix
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from os import PathLike

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
NO_PROXY = "localhost,127.0.0.1,::1"
_CHUNK = 64 * 1024
_USAGE = "usage: forwarder.py SOCKET -- COMMAND [ARG...]\n"


def proxy_environment(port: int) -> dict[str, str]:
    """The variables that send a command's HTTP(S) clients to the forwarder on ``127.0.0.1:port``."""
    url = f"http://127.0.0.1:{port}"
    return {**{name: url for name in PROXY_VARIABLES}, "NO_PROXY": NO_PROXY, "no_proxy": NO_PROXY}


def forwarded_argv(argv: Sequence[str], socket_path: str | PathLike[str], *, python: str | None = None) -> tuple[str, ...]:
    """The argv (to run inside the sandbox) that starts ``argv`` behind a forwarder to ``socket_path``."""
    import os

    return (python or sys.executable, "-I", "-S", os.path.abspath(__file__), os.fspath(socket_path), "--", *argv)


def _pipe(source: _socket.socket, sink: _socket.socket, done: _thread.LockType | None = None) -> None:
    try:
        while chunk := source.recv(_CHUNK):
            sink.sendall(chunk)
        sink.shutdown(_socket.SHUT_WR)
    except OSError:
        for end in (source, sink):
            try:
                end.shutdown(_socket.SHUT_RDWR)
            except OSError:
                pass
    finally:
        if done is not None:
            done.release()


def _forward(client: _socket.socket, socket_path: str) -> None:
    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = _thread.allocate_lock()
    back.acquire()
    _thread.start_new_thread(_pipe, (upstream, client, back))
    _pipe(client, upstream)
    back.acquire()
    client.close()
    upstream.close()


def _serve(listener: _socket.socket, socket_path: str) -> None:
    while True:
        try:
            descriptor, _ = listener._accept()  # type: ignore[attr-defined]  # socket.accept() is this, wrapped
        except OSError:  # out of descriptors, say: wait for some to close rather than spin or stop serving
            time.sleep(0.05)
            continue
        client = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM, 0, descriptor)
        try:
            _thread.start_new_thread(_forward, (client, socket_path))
        except RuntimeError:  # at the process limit: refuse this one
            client.close()


def main(args: Sequence[str]) -> int:
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write(_USAGE)
        return 2
    socket_path, command = args[0], list(args[2:])
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    environment = {**posix.environ, **{k.encode(): v.encode() for k, v in proxy_environment(listener.getsockname()[1]).items()}}
    for number in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        _signal.signal(number, lambda *_: None)
    try:
        child = posix.posix_spawnp(command[0], command, environment, setsigdef=(_signal.SIGPIPE, _signal.SIGXFSZ))
    except OSError as error:
        sys.stderr.write(f"{command[0]}: {error.strerror}\n")
        return 127 if isinstance(error, FileNotFoundError) else 126
    _thread.start_new_thread(_serve, (listener, socket_path))
    _, status = posix.waitpid(child, 0)
    code = posix.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    posix._exit(main(sys.argv[1:]))
