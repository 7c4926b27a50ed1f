"""``DashboardConfig``: how the Streamlit dashboard reaches its database and the broker.

Built once per process from the arguments after ``--`` of ``streamlit run``::

    streamlit run dashboard/app.py -- --db-url sqlite:///data/gobuddy.db \\
        --broker-host 127.0.0.1 --broker-port 1883 --broker-user dashboard \\
        --broker-password-file var/broker/dashboard.password

Nothing here reads the environment. ``--broker-password-file`` is preferred to
``--broker-password`` (a password on the command line is visible to every local user).
Without ``--broker-host`` the dashboard runs without the bus: Games and Replay work from
the database, Live/Play/System say that no broker is configured.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gobuddy.bus.config import BusConfig

DEFAULT_DB_URL = "sqlite:///data/gobuddy.db"


class ConfigError(ValueError):
    """A dashboard argument that cannot work; the message names it."""


@dataclass(frozen=True)
class DashboardConfig:
    """Everything the dashboard needs from its command line (hashable: it keys the
    process-wide resources). ``broker_host`` None means: no bus.

    live_interval_s: how often the Live page re-reads the in-memory feed.
    analysis_visits / analysis_timeout_s: the budget of the dashboard's own engine
    requests (live recommendations, replay analysis, hints); play visits are chosen on
    the Play page."""

    db_url: str = DEFAULT_DB_URL
    broker_host: str | None = None
    broker_port: int = 1883
    broker_user: str | None = "dashboard"
    broker_password: str | None = None
    tls_ca_file: str | None = None
    client_id: str | None = None
    live_interval_s: float = 0.1
    analysis_visits: int = 200
    analysis_timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if not self.db_url or "://" not in self.db_url:
            raise ConfigError(f"--db-url: {self.db_url!r} is not a database URL (e.g. sqlite:///data/gobuddy.db)")
        if not 0 < self.broker_port < 65536:
            raise ConfigError(f"--broker-port: {self.broker_port} is not a TCP port")
        if not 0.02 <= self.live_interval_s <= 10:
            raise ConfigError(f"--live-interval: {self.live_interval_s} s is outside 0.02..10")
        if not 1 <= self.analysis_visits <= 100_000:
            raise ConfigError(f"--analysis-visits: {self.analysis_visits} is outside 1..100000")
        if not 1 <= self.analysis_timeout_s <= 600:
            raise ConfigError(f"--analysis-timeout: {self.analysis_timeout_s} s is outside 1..600")

    @property
    def has_broker(self) -> bool:
        return self.broker_host is not None

    def bus_config(self) -> BusConfig:
        """The ``BusConfig`` of the dashboard's one bus client (role ``dashboard``).

        The client id is ``--client-id`` or ``dashboard-<host>-<pid>-<random>``: unique
        per process, since two clients sharing an id knock each other off the broker."""
        if self.broker_host is None:
            raise ConfigError("no broker configured (--broker-host)")
        client_id = self.client_id or default_client_id()
        return BusConfig(client_id=client_id, role="dashboard", host=self.broker_host, port=self.broker_port,
                         username=self.broker_user, password=self.broker_password, tls_ca_file=self.tls_ca_file,
                         reconnect_min_s=0.2, reconnect_max_s=5.0)


def default_client_id() -> str:
    """``dashboard-<host>-<pid>-<6 hex>``, cut to what a client id may hold."""
    host = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in socket.gethostname())[:24].strip("-.")
    return f"dashboard-{host or 'host'}-{os.getpid()}-{secrets.token_hex(3)}"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="streamlit run dashboard/app.py --",
                                description="Go Learning Buddy dashboard (Streamlit).")
    p.add_argument("--db-url", default=DEFAULT_DB_URL, help=f"SQLAlchemy URL of the history (default {DEFAULT_DB_URL})")
    p.add_argument("--broker-host", default=None, help="MQTT broker host (omit to run without the bus)")
    p.add_argument("--broker-port", type=int, default=1883)
    p.add_argument("--broker-user", default="dashboard", help="broker account (default: dashboard)")
    p.add_argument("--broker-password", default=None, help="broker password (prefer --broker-password-file)")
    p.add_argument("--broker-password-file", default=None, help="file whose first line is the broker password")
    p.add_argument("--tls-ca-file", default=None, help="CA certificate: connect with TLS")
    p.add_argument("--client-id", default=None, help="MQTT client id (default: dashboard-<host>-<pid>-<random>)")
    p.add_argument("--live-interval", type=float, default=0.1, help="Live page refresh interval in seconds")
    p.add_argument("--analysis-visits", type=int, default=200, help="visits of the dashboard's engine requests")
    p.add_argument("--analysis-timeout", type=float, default=30.0, help="seconds to wait for one engine answer")
    return p


def from_args(argv: Sequence[str]) -> DashboardConfig:
    """Parse ``argv`` (the arguments after ``--``). Raises ``ConfigError`` naming the
    argument (argparse's own usage errors raise ``SystemExit``, as usual)."""
    args = parser().parse_args(list(argv))
    password = args.broker_password
    if args.broker_password_file is not None:
        if password is not None:
            raise ConfigError("give --broker-password or --broker-password-file, not both")
        try:
            lines = Path(args.broker_password_file).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"--broker-password-file: {exc}") from None
        password = lines[0].strip() if lines else ""
    return DashboardConfig(db_url=args.db_url, broker_host=args.broker_host, broker_port=args.broker_port,
                           broker_user=args.broker_user, broker_password=password, tls_ca_file=args.tls_ca_file,
                           client_id=args.client_id, live_interval_s=args.live_interval,
                           analysis_visits=args.analysis_visits, analysis_timeout_s=args.analysis_timeout)
