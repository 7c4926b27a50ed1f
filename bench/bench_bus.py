"""Message backbone figures: request->answer round trip through a real Mosquitto with a
one-visit search (the bus's own overhead), and answers per second with one and two
engine workers. Writes a markdown section to stdout.

    python -m bench.bench_bus [--requests 1000] [--model PATH] [--quick]

Starts its own broker (``tests.mqtt_broker``: the project's configuration, ACL and
accounts, on a free loopback port) and the workers as real processes
(``python -m engine_worker``, one onnxruntime thread each, answer cache off so every
request is searched). The requester is one ``BusClient`` of role dashboard. Positions
are distinct random 9x9 positions (10 to 40 random moves). The model is
``models/gobuddy-9x9.onnx`` when present, else a random-weight 6 blocks x 64 channels
model (speed does not depend on the weights).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_engine import model_path, percentile
from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.engine_messages import EngineRequest, Position as WirePosition
from gobuddy.bus.message import now_ms
from gobuddy.go.coords import color_to_str, to_gtp
from gobuddy.go.playout import random_move
from gobuddy.go.position import Position
from tests.e2e.harness import broker_args
from tests.mqtt_broker import REPO, Inbox, MosquittoBroker


def random_positions(count: int, seed: int = 1) -> list[tuple[tuple[str, str], ...]]:
    """``count`` distinct positions as GTP move lists."""
    rng, seen, out = random.Random(seed), set(), []
    while len(out) < count:
        pos, moves = Position(9), []
        for _ in range(rng.randrange(10, 40)):
            point = random_move(pos, rng)
            moves.append((color_to_str(pos.to_play), to_gtp(point, 9)))
            pos.play(point)
        key = tuple(moves)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def request(n: int, moves: tuple, visits: int, deadline_s: float) -> EngineRequest:
    return EngineRequest(id=f"bench-{n}", board_id=None, purpose="analysis", max_visits=visits,
                         deadline_ms=now_ms() + int(deadline_s * 1000),
                         position=WirePosition(size=9, komi=7.0, rules="chinese", moves=moves))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Workers:
    """Engine worker processes, started and awaited through their retained status."""

    def __init__(self, broker: MosquittoBroker, model: Path, tmp: Path) -> None:
        self.broker, self.model, self.tmp = broker, model, tmp
        self.processes: list[subprocess.Popen] = []
        self.presence = Inbox()
        self.observer = BusClient(broker.config("observer-3"))
        self.observer.subscribe(topics.status_filter("engine"), self.presence)
        self.observer.start()

    def start(self, count: int, *extra: str) -> None:
        since = now_ms()
        names = [f"engine-bench-{len(self.processes) + i}" for i in range(count)]
        for name in names:  # one account per worker, as make_users.py makes them
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "engine_worker", *broker_args(self.broker, name), "--model", str(self.model),
                 "--cache-size", "0", "--log-level", "WARNING", *extra], cwd=REPO, stdout=subprocess.DEVNULL,
                stderr=open(self.tmp / f"{name}.log", "wb")))
        for name in names:
            self.presence.wait_for(1, timeout_s=60, where=lambda r, name=name: (
                r.message.client_id == name and r.message.state == "online" and r.message.ts >= since))

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(10)
        self.processes.clear()
        self.observer.stop()


def round_trips(client: BusClient, positions: list[tuple], warmup: int) -> tuple[list[float], list[float]]:
    """Sequential requests of one visit: (round trip ms, worker's search ms) per request."""
    rtt, search = [], []
    for n, moves in enumerate(positions):
        started = time.perf_counter()
        answer = client.request(request(n, moves, 1, 10.0))
        elapsed = (time.perf_counter() - started) * 1000.0
        if n >= warmup:
            rtt.append(elapsed)
            search.append(answer.elapsed_ms)
    return rtt, search


def throughput(client: BusClient, positions: list[tuple], visits: int, offset: int) -> float:
    """Answers per second for all ``positions`` sent at once."""
    started = time.perf_counter()
    futures = [client.request_async(request(offset + n, moves, visits, 120.0)) for n, moves in enumerate(positions)]
    for future in futures:
        future.result(120)
    return len(positions) / (time.perf_counter() - started)


def run(requests: int, model: Path | None, quick: bool) -> str:
    with tempfile.TemporaryDirectory() as tmp_name, MosquittoBroker() as broker:
        tmp = Path(tmp_name)
        path, described = model_path(model, tmp)
        warmup = 50
        positions = random_positions(requests + warmup + 4000)
        workers = Workers(broker, path, tmp)
        client = BusClient(broker.config("dashboard"))
        client.start()
        try:
            workers.start(1)
            load_before = os.getloadavg()[0]
            pids = {"requester": os.getpid(), "broker": broker.process.pid, "worker": workers.processes[0].pid}
            cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
            rtt, search = round_trips(client, positions[:requests + warmup], warmup)
            cpu = {name: (cpu_seconds(pid) - cpu_before[name]) * 1000 / (requests + warmup)
                   for name, pid in pids.items()}
            load_after = os.getloadavg()[0]
            overhead = [r - s for r, s in zip(rtt, search)]
            spare = positions[requests + warmup:]
            load = {1: 200, 100: 40} if quick else {1: 1000, 100: 100}
            rates = {}
            for count in (1, 2):
                if count == 2:
                    workers.start(1)
                offset = 0
                for visits, n in load.items():
                    batch = spare[offset:offset + n]
                    rates[(count, visits)] = throughput(client, batch, visits, 10**6 * count + offset)
                    offset += n
        finally:
            client.stop()
            workers.stop()
    lines = [
        "## Message backbone (`bench.bench_bus`)",
        "",
        f"Mosquitto 2.0.11 on loopback with the project's ACL; workers are `python -m engine_worker` processes "
        f"(1 onnxruntime thread, answer cache off), model: {described}; the requester is one `BusClient`. "
        f"Round trip = `BusClient.request` returning, measured by the requester.",
        "",
        f"| one-visit request -> answer, one at a time ({len(rtt)} requests) | p50 | p99 | max |",
        "|---|---|---|---|",
        f"| round trip | {statistics.median(rtt):.1f} ms | {percentile(rtt, 0.99):.1f} ms | {max(rtt):.1f} ms |",
        f"| of which the worker's search (`elapsed_ms`) | {statistics.median(search):.1f} ms | "
        f"{percentile(search, 0.99):.1f} ms | {max(search):.1f} ms |",
        f"| the rest: broker, validation, queueing (round trip - search) | {statistics.median(overhead):.1f} ms | "
        f"{percentile(overhead, 0.99):.1f} ms | {max(overhead):.1f} ms |",
        "",
        f"CPU time per round trip: requester {cpu['requester']:.1f} ms, broker {cpu['broker']:.2f} ms, "
        f"worker {cpu['worker']:.1f} ms (a floor for the round trip on an idle machine). Load average "
        f"{load_before:.1f} -> {load_after:.1f} on {os.cpu_count()} cores while measuring.",
        "",
        "| answers per second, all requests sent at once | 1 worker | 2 workers |",
        "|---|---|---|",
    ]
    for visits, n in load.items():
        lines.append(f"| {visits} visit{'s' if visits > 1 else ''} a request ({n} requests) | "
                     f"{rates[(1, visits)]:,.0f} | {rates[(2, visits)]:,.0f} |")
    lines += ["", "The requester, the broker and the workers share this machine's cores, so a second worker "
              "helps only as far as a core is free."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="sequential one-visit requests (default 1000)")
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="fewer requests in the throughput runs")
    args = parser.parse_args(argv)
    print(run(args.requests, args.model, args.quick))


if __name__ == "__main__":
    main()
