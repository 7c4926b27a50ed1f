"""``DashboardConfig``: how the Streamlit dashboard reaches its database and the broker.

Built from the arguments after ``--`` of ``streamlit run`` (the launcher and
docker-compose pass the same broker options as every service, ``gobuddy.bus.cli``)::

    streamlit run dashboard/app.py -- --db sqlite:///var/gobuddy.db \\
        --broker-host 127.0.0.1 --broker-port 1883 --username dashboard \\
        --password-file var/broker/secrets/dashboard.password

Nothing here reads the environment; the only file read is the one ``--password-file``
names. The client id is the account (the broker binds them). ``--no-bus`` runs the
dashboard without a broker: Games and Replay work from the database, Live/Play/System
say that there is no bus. ``--auth auto|on|off`` says whether
pages ask for a sign-in (``dashboard.access``: ``auto``, the default, is on unless
Streamlit serves on loopback only).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Sequence

from dashboard.access import AUTH_MODES
from gobuddy.bus.cli import add_broker_arguments, bus_config_from_args
from gobuddy.bus.config import BusConfig
from gobuddy.bus.topics import TopicError
from gobuddy.go.coords import MAX_SIZE, MIN_SIZE

DEFAULT_DB_URL = "sqlite:///data/gobuddy.db"
# The board sizes the Play page offers by default: those with a shipped model and
# calibrated opponent levels (models/LEVELS.md for 9x9, models/LEVELS-13x13.md for
# 13x13); 9x9 first, preselected. A test checks each against its shipped model's
# metadata and its calibration report.
DEFAULT_PLAY_SIZES: tuple[int, ...] = (9, 13)


class ConfigError(ValueError):
    """A dashboard argument that cannot work; the message names it."""


@dataclass(frozen=True)
class DashboardConfig:
    """Everything the dashboard needs from its command line (hashable: it keys the
    process-wide resources). ``bus`` None: no broker.

    live_interval_s: the Live page's refresh timer.
    status_interval_s: how often the sidebar's status lines are drawn again.
    analysis_visits / analysis_timeout_s: the budget of the dashboard's own engine
    requests (live recommendations, replay analysis, hints); the Play page chooses the
    visits of the engine's moves.
    play_sizes: the board sizes the Play page offers, the first preselected (9x9 and
    13x13 by default: the shipped models' sizes, where the opponent levels are
    calibrated). Not checked: that the engine workers play them (they refuse another
    size with an error that names it, which the page shows)."""

    db_url: str = DEFAULT_DB_URL
    bus: BusConfig | None = None
    live_interval_s: float = 0.1
    status_interval_s: float = 2.0
    analysis_visits: int = 200
    analysis_timeout_s: float = 30.0
    auth: str = "auto"
    play_sizes: tuple[int, ...] = DEFAULT_PLAY_SIZES

    def __post_init__(self) -> None:
        if not self.db_url or "://" not in self.db_url:
            raise ConfigError(f"--db: {self.db_url!r} is not a database URL (e.g. sqlite:///data/gobuddy.db)")
        if self.bus is not None and self.bus.role != "dashboard":
            raise ConfigError(f"the dashboard connects with role 'dashboard', not {self.bus.role!r}")
        if not 0.02 <= self.live_interval_s <= 10:
            raise ConfigError(f"--live-interval: {self.live_interval_s} s is outside 0.02..10")
        if not 0.5 <= self.status_interval_s <= 3600:
            raise ConfigError(f"--status-interval: {self.status_interval_s} s is outside 0.5..3600")
        if not 1 <= self.analysis_visits <= 100_000:
            raise ConfigError(f"--analysis-visits: {self.analysis_visits} is outside 1..100000")
        if not 1 <= self.analysis_timeout_s <= 600:
            raise ConfigError(f"--analysis-timeout: {self.analysis_timeout_s} s is outside 1..600")
        if not self.play_sizes or len(set(self.play_sizes)) != len(self.play_sizes) or not all(
                MIN_SIZE <= n <= MAX_SIZE for n in self.play_sizes):
            raise ConfigError(f"--play-sizes: {','.join(map(str, self.play_sizes)) or 'nothing'} is not a list of "
                              f"different board sizes from {MIN_SIZE} to {MAX_SIZE} (e.g. 9,13)")
        if self.auth not in AUTH_MODES:
            raise ConfigError(f"--auth: {self.auth!r} is not one of {', '.join(AUTH_MODES)}")

    @property
    def has_broker(self) -> bool:
        return self.bus is not None

    @property
    def broker_address(self) -> str:
        return f"{self.bus.host}:{self.bus.port}" if self.bus else "none"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="streamlit run dashboard/app.py --",
                                description="Go Learning Buddy dashboard (Streamlit).", exit_on_error=False)
    add_broker_arguments(p, default_username="dashboard")
    p.add_argument("--no-bus", action="store_true", help="run without a broker (history only)")
    p.add_argument("--db", "--db-url", dest="db", default=DEFAULT_DB_URL,
                   help=f"SQLAlchemy URL of the history (default {DEFAULT_DB_URL})")
    p.add_argument("--live-interval", type=float, default=0.1, help="Live page refresh timer in seconds (default 0.1)")
    p.add_argument("--status-interval", type=float, default=2.0,
                   help="seconds between redraws of the sidebar's status lines (default 2)")
    p.add_argument("--analysis-visits", type=int, default=200,
                   help="visits of the dashboard's analysis requests (default 200)")
    p.add_argument("--analysis-timeout", type=float, default=30.0,
                   help="seconds to wait for one engine answer (default 30)")
    p.add_argument("--play-sizes", type=_sizes, default=DEFAULT_PLAY_SIZES,
                   help="board sizes the Play page offers, comma-separated, the first preselected (default "
                        f"{','.join(map(str, DEFAULT_PLAY_SIZES))}: the sizes of the shipped models, where the "
                        "opponent levels are calibrated)")
    p.add_argument("--auth", choices=AUTH_MODES, default="auto",
                   help="sign-in: on, off (loopback only) or auto = on unless serving on loopback (default auto)")
    return p


def _sizes(text: str) -> tuple[int, ...]:
    """``"9,13"`` -> ``(9, 13)``; the range is checked by ``DashboardConfig``."""
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of board sizes (e.g. 9,13)") from None


@lru_cache(maxsize=16)
def _parse(argv: tuple[str, ...]) -> DashboardConfig:
    try:
        args = parser().parse_args(list(argv))
    except argparse.ArgumentError as exc:
        raise ConfigError(str(exc)) from None
    except SystemExit:  # argparse's own usage errors (already printed on stderr)
        raise ConfigError(f"cannot use the arguments {' '.join(argv)!r}: see --help") from None
    bus = None
    if not args.no_bus:
        try:
            bus = bus_config_from_args(args, role="dashboard")
        except (TopicError, ValueError) as exc:
            raise ConfigError(f"broker options: {exc}") from None
        except SystemExit as exc:  # gobuddy.bus.cli: an unreadable --password-file
            raise ConfigError(str(exc)) from None
        bus = replace(bus, reconnect_min_s=0.2, reconnect_max_s=5.0)
    return DashboardConfig(db_url=args.db, bus=bus, live_interval_s=args.live_interval,
                           status_interval_s=args.status_interval,
                           analysis_visits=args.analysis_visits, analysis_timeout_s=args.analysis_timeout,
                           auth=args.auth, play_sizes=args.play_sizes)


def from_args(argv: Sequence[str]) -> DashboardConfig:
    """Parse ``argv`` (the arguments after ``--``); the same arguments give the same
    config (and client id) for the life of the process. Raises ``ConfigError`` naming
    the argument that cannot work."""
    return _parse(tuple(argv))
