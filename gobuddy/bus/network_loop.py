"""A paho client whose network thread cannot end silently.

paho re-raises an exception that escapes a callback (``suppress_exceptions`` is False)
from its network loop, which ends the network thread while the process lives on: no
more messages, no reconnects, and nothing a supervisor can see. ``GuardedPaho``
overrides ``loop_forever``, which paho documents as what ``loop_start()`` runs in its
network thread, so the guard uses public names only (not paho's private ``_thread``):

- an ``Exception`` escaping the loop is logged with its traceback, ``on_failure`` is
  called, the connection is dropped and made anew (a fresh socket and packet state;
  QoS 1 messages not yet acknowledged come again), and the loop goes on;
- more than ``max_failures`` such failures within ``window_s`` (a poison that comes
  back with every reconnect), or any ``BaseException``, end the loop (logged, not
  re-raised: the thread ends either way);
- ``loop_running`` is our own flag, set and cleared in a try/finally around the loop,
  and ``on_exit(error)`` is called whenever the loop ends, normally (``disconnect``)
  or not: the owner decides whether that was expected (``BusClient`` makes the process
  exit non-zero when it was not, so that its supervisor restarts it).

Suppressing callback exceptions (``suppress_exceptions = True``) was not chosen: paho
would go on with a half-handled packet and only log at its own level; a reconnect
restores a known state. ``BusClient``'s callbacks catch their own exceptions, so this is
the second line of defence, not the first.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from typing import Any, Callable

import paho.mqtt.client as mqtt

EXIT_BUS_FAILED = 70  # EX_SOFTWARE: the exit status of a process whose bus thread ended unexpectedly


def exit_process(reason: str) -> None:
    """``BusClient``'s default ``on_fatal``: end the process at once with
    ``EXIT_BUS_FAILED`` so that its supervisor (the launcher, compose, systemd) restarts
    it; a service that lived on without its network or dispatcher thread would serve
    nothing and say nothing."""
    logging.getLogger("gobuddy.bus").critical("exiting with status %d: %s", EXIT_BUS_FAILED, reason)
    logging.shutdown()
    os._exit(EXIT_BUS_FAILED)


class GuardedPaho(mqtt.Client):
    """``paho.mqtt.client.Client`` with a guarded ``loop_forever``; see the module docstring."""

    def __init__(self, *args: Any, log: logging.Logger, on_failure: Callable[[BaseException], None],
                 on_exit: Callable[[BaseException | None], None], max_failures: int = 5, window_s: float = 60.0,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loop_running = False
        self.loop_failures = 0
        self._guard_log = log
        self._on_failure = on_failure
        self._on_exit = on_exit
        self._max_failures = max_failures
        self._window_s = window_s

    def loop_forever(self, timeout: float = 1.0, retry_first_connection: bool = False) -> mqtt.MQTTErrorCode:
        recent: deque[float] = deque()
        ended_by: BaseException | None = None
        self.loop_running = True
        try:
            while True:
                try:
                    return super().loop_forever(timeout, retry_first_connection)
                except Exception as exc:
                    self.loop_failures += 1
                    now = time.monotonic()
                    recent.append(now)
                    while recent and now - recent[0] > self._window_s:
                        recent.popleft()
                    if len(recent) > self._max_failures:
                        self._guard_log.critical("the network loop failed %d times within %.0f s; giving up",
                                                 len(recent), self._window_s, exc_info=exc)
                        ended_by = exc
                        return mqtt.MQTTErrorCode.MQTT_ERR_UNKNOWN
                    self._guard_log.error("the network loop failed; reconnecting", exc_info=exc)
                    self._recover(exc)
                    retry_first_connection = True
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: this thread ends, and says so
            self._guard_log.critical("the network loop ended: %r", exc, exc_info=exc)
            ended_by = exc
            return mqtt.MQTTErrorCode.MQTT_ERR_UNKNOWN
        finally:
            self.loop_running = False
            self._on_exit(ended_by)

    def _recover(self, exc: BaseException) -> None:
        try:
            self._on_failure(exc)
        except Exception:
            self._guard_log.exception("on_failure failed")
        try:
            self.reconnect()  # on failure the loop retries with backoff
        except Exception as error:
            self._guard_log.warning("reconnecting after a network loop failure: %s", error)
