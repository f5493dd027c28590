"""Loopback helpers: free ports and waiting for a server's greeting."""
from __future__ import annotations

import socket
import time

LOOPBACK = "127.0.0.1"


def free_ports(count: int = 1) -> list[int]:
    """Ports free on loopback right now, all distinct (sockets held open until all are picked)."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((LOOPBACK, 0))
            socks.append(sock)
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


def wait_for_greeting(port: int, prefix: bytes, timeout: float, alive=lambda: True) -> bytes:
    """Connect until the server greets with ``prefix``; return the greeting line.

    ``alive`` is polled between attempts so that a server that died does not cost the whole
    timeout. Raises ``TimeoutError`` when no greeting came.
    """
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError("server process exited before greeting")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=1.0) as sock:
                line = sock.makefile("rb").readline()
                if line.startswith(prefix):
                    return line
                last_error = RuntimeError(f"unexpected greeting {line!r}")
        except OSError as exc:
            last_error = exc
        time.sleep(0.01)
    raise TimeoutError(f"no {prefix!r} greeting on port {port} after {timeout}s: {last_error}")
