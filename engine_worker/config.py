"""``WorkerConfig``: everything an engine worker needs, built from its command line.

    python -m engine_worker --broker-host 127.0.0.1 --broker-port 1883 --username engine-1 \\
        --password-file var/broker/secrets/engine-1.password \\
        --model models/gobuddy-9x9.int8.onnx --model models/gobuddy-13x13.int8.onnx \\
        --visits 5000 --threads 1 --share-group engine

``parse_args`` turns arguments into a ``WorkerConfig`` (argparse errors exit with status
2 and name the argument, including a model file that does not exist). The broker options
are the shared ones of ``gobuddy.bus.cli``; the worker's id is its account
(``engine-<n>``: one account per worker, see ``broker/make_users.py``). Nothing here
reads the environment. Sessions are deliberately clean (not persistent): see ``engine_worker.worker`` for what
Mosquitto 2.0.11 does with a shared subscriber's session when the subscriber dies.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from engine_worker.shipped import level_models, shipped_twins
from gobuddy.bus.cli import add_broker_arguments, bus_config_from_args
from gobuddy.bus.config import BusConfig
from gobuddy.bus.topics import ENGINE_GROUP, TopicError, shared

# The shipped models' int8 twins, one per board size (``engine_worker.shipped``), as paths
# relative to the checkout the worker runs in (as a container's working directory is).
DEFAULT_MODELS = shipped_twins(Path("models"))
DEFAULT_LEVEL_MODELS = level_models(Path("models"))  # what the levels' calibration played
DEFAULT_VISIT_CAP = 5000


@dataclass(frozen=True)
class WorkerConfig:
    """How one engine worker runs.

    visit_cap: a request asking for more visits is searched with this many (the schema
    makes ``max_visits`` required, so this is a cap, not a default).
    deadline_margin_ms / deadline_margin_fraction: the search stops this long before the
    request's deadline (the larger of the fixed margin and the fraction of the time left
    when the search starts), to leave time for the answer to be made and to travel on a
    busy machine; a request with less time left is refused with an ``engine_error`` on
    ``deadline_ms``.
    cache_size: answers kept (LRU), 0 disables the cache.
    max_queue: requests waiting beyond this are refused at once (``engine_error``, busy).
    max_queue_per_requester: at most this many of one requester's requests wait (busy beyond).
    status_interval_s: how often the retained status (queue depth, evals/s) is refreshed.
    nice: added to the process's niceness at start (``__main__``): a worker sharing its
    machine with the dashboard and a browser searches with what they leave (``make run``
    gives 10), so pages stay quick while it thinks.
    """

    bus: BusConfig
    models: tuple[Path, ...] = DEFAULT_MODELS  # one ONNX model per board size
    # The models the opponent levels below ``full`` play, one per board size; a size
    # without one plays its level moves with ``models``. Empty: the levels play ``models``.
    level_models: tuple[Path, ...] = ()
    visit_cap: int = DEFAULT_VISIT_CAP
    threads: int = 1
    share_group: str = ENGINE_GROUP
    batch_size: int = 8
    deadline_margin_ms: int = 30
    deadline_margin_fraction: float = 0.1
    cache_size: int = 4096
    max_queue: int = 1000
    max_queue_per_requester: int = 256
    status_interval_s: float = 5.0
    nice: int = 0
    search: str = "auto"  # who runs the search (gobuddy.ai.search_engines): auto = native where it can

    def __post_init__(self) -> None:
        if self.bus.role != "engine":
            raise ValueError(f"bus.role: an engine worker connects as 'engine', not {self.bus.role!r}")
        for name, low, high in (("visit_cap", 1, 1_000_000), ("threads", 1, 64), ("batch_size", 1, 256),
                                ("status_interval_s", 0.1, 3600)):
            if not low <= getattr(self, name) <= high:
                raise ValueError(f"{name}: {getattr(self, name)} is outside {low}..{high}")
        if (self.deadline_margin_ms < 0 or self.cache_size < 0 or self.max_queue < 1
                or self.max_queue_per_requester < 1):
            raise ValueError("deadline_margin_ms and cache_size must be >= 0, max_queue(_per_requester) >= 1")
        if not 0 <= self.deadline_margin_fraction < 1:
            raise ValueError(f"deadline_margin_fraction: {self.deadline_margin_fraction} is outside [0, 1)")
        if self.search not in ("auto", "native", "python"):
            raise ValueError(f"search: {self.search!r} is not one of auto, native, python")
        shared(self.share_group, "x")  # raises TopicError for a bad group name


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m engine_worker",
                                description="Go Learning Buddy engine worker: answers engine requests over MQTT.")
    add_broker_arguments(p, default_username="engine-1")
    p.add_argument("--model", type=Path, action="append", default=None,
                   help="ONNX model; once per board size for several (default: "
                        f"{' and '.join(map(str, DEFAULT_MODELS))})")
    p.add_argument("--level-model", type=Path, action="append", default=None,
                   help="the ONNX model the opponent levels below 'full' play, once per board size: the "
                        "one their calibration played (default without --model: those of "
                        f"{' and '.join(map(str, DEFAULT_LEVEL_MODELS))} that exist; with --model, or "
                        "'none': the levels play --model)")
    p.add_argument("--visits", type=int, default=DEFAULT_VISIT_CAP,
                   help="most visits one request gets; requests asking for more get this "
                        f"(default {DEFAULT_VISIT_CAP})")
    p.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads (default 1)")
    p.add_argument("--share-group", default=ENGINE_GROUP,
                   help=f"shared subscription group: workers of one group split the requests (default {ENGINE_GROUP})")
    p.add_argument("--batch-size", type=int, default=8, help="leaves evaluated per network call (default 8)")
    p.add_argument("--cache-size", type=int, default=4096, help="answers kept in the LRU cache, 0: none (default 4096)")
    p.add_argument("--max-queue", type=int, default=1000, help="requests waiting before new ones are refused")
    p.add_argument("--max-queue-per-requester", type=int, default=256,
                   help="one requester's requests waiting before its new ones are refused (default 256)")
    p.add_argument("--status-interval", type=float, default=5.0, help="seconds between status updates (default 5)")
    p.add_argument("--nice", type=int, default=0, choices=range(0, 20), metavar="N",
                   help="run at this niceness (0-19, default 0): the interactive services on the same "
                        "machine come first")
    p.add_argument("--search", choices=("auto", "native", "python"), default="auto",
                   help="who runs the search: the compiled tree (native), the Python one (python), or auto "
                        "(default): native unless it cannot be built here")
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return p


def parse_args(argv: Sequence[str] | None = None) -> tuple[WorkerConfig, str]:
    """(the worker's configuration, the log level) from ``argv``; exits with a usage
    error naming the argument that cannot work."""
    p = parser()
    args = p.parse_args(argv)
    models = tuple(args.model or DEFAULT_MODELS)
    for model in models:
        if not model.is_file():
            hint = (" (the shipped model is missing from this checkout: restore models/ with git, "
                    "or run `make model`)") if model in DEFAULT_MODELS else ""
            p.error(f"--model: {model} does not exist{hint}")
    if args.level_model is None:  # with the shipped models, the shipped level models this checkout has
        level = () if args.model else tuple(m for m in DEFAULT_LEVEL_MODELS if m.is_file())
    elif [str(m) for m in args.level_model] == ["none"]:
        level = ()
    else:
        level = tuple(args.level_model)
        for model in level:
            if not model.is_file():
                p.error(f"--level-model: {model} does not exist")
    try:
        bus = bus_config_from_args(args, role="engine", persistent_session=False)
        config = WorkerConfig(bus=bus, models=models, level_models=level, visit_cap=args.visits,
                              threads=args.threads,
                              share_group=args.share_group, batch_size=args.batch_size, cache_size=args.cache_size,
                              max_queue=args.max_queue,
                              max_queue_per_requester=args.max_queue_per_requester,
                              status_interval_s=args.status_interval, nice=args.nice, search=args.search)
    except (ValueError, TopicError) as exc:
        p.error(str(exc))
    except SystemExit as exc:  # gobuddy.bus.cli: an unreadable --password-file
        p.error(str(exc.code))
    return config, args.log_level
