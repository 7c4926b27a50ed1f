"""How a long-running service process lives on the bus: it connects (retrying while the
broker is unreachable), serves until SIGTERM or Ctrl-C, then stops.

    stop = stop_on_signals()            # in the main thread
    serve(service, stop)                # service.start(stop); wait; service.stop()

``connect`` is the retry loop a service's ``start`` uses: a fresh ``BusClient`` per
attempt (a client that failed to connect is not reused), no backoff of its own (the
client's ``start(wait=True)`` already waits its connect timeout).
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Callable, Iterable, Protocol

from gobuddy.bus.client import BusClient


class Service(Protocol):
    def start(self, stop: threading.Event | None = None) -> None: ...

    def stop(self) -> None: ...


def stop_on_signals() -> threading.Event:
    """An event that SIGTERM and SIGINT set (installs the handlers: main thread only)."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def serve(service: Service, stop: threading.Event) -> None:
    """``service.start(stop)``, wait until ``stop`` is set, then ``service.stop()`` (also
    when ``start`` raised)."""
    try:
        service.start(stop)
        stop.wait()
    finally:
        service.stop()


def connect(make_client: Callable[[], BusClient], stops: Iterable[threading.Event | None],
            log: logging.Logger) -> BusClient | None:
    """Start clients from ``make_client`` until one is connected and return it; ``None``
    when one of ``stops`` (``None`` entries ignored) is set first. A refused account
    (``ConnectionRefusedError``) is raised at once; an unreachable broker
    (``TimeoutError``) is logged and retried."""
    events = [event for event in stops if event is not None]
    while not any(event.is_set() for event in events):
        client = make_client()
        try:
            client.start(wait=True)
        except TimeoutError as exc:
            log.warning("%s; trying again", exc)
            continue
        return client
    return None
