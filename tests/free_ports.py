"""Free TCP ports on 127.0.0.1 for the servers the tests start.

``free_ports(n)`` binds ``n`` sockets at once and only then lets them go, so the ports
are different from each other: two ``free_port()`` calls in a row can get the same
port back (the kernel may hand a just-closed ephemeral port out again; a launcher test
once got its broker and its dashboard on one port). Not guaranteed: that another
process does not take a port between this call and the server's bind (callers that
can, retry)."""

from __future__ import annotations

import socket
from contextlib import ExitStack


def free_ports(count: int) -> list[int]:
    """``count`` different ports free on 127.0.0.1 now."""
    with ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]


def free_port() -> int:
    """One port free on 127.0.0.1 now."""
    return free_ports(1)[0]
