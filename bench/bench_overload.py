"""Engine workers under load: simulated boards asking a hint every 5 s, as the edge agent
does (200 visits, 2 s of thought, 8 s to answer), with one and two workers, and one board
flooding the workers beside ten normal ones. Writes a markdown section to stdout.

    python -m bench.bench_overload [--boards 10 20 50 100] [--workers 1 2] [--seconds 40]

Starts its own broker (``tests.mqtt_broker``: the project's configuration and accounts, a
board account per simulated board) and the workers as real processes (``python -m
engine_worker``, one onnxruntime thread each, the shipped model, answer cache off so
every request is searched). Each board is a ``BusClient`` of its own account in this
process, sending a ``hint`` about itself for a different random position every 5 s
(first ones spread over the first 5 s), through ``request_async`` (so re-sends on
silence happen as on a board). Outcomes per request: answered (latency from sending to
the final answer, visits the search spent), ``busy`` (the workers said so), or silent
(no word by the deadline). Fair share in the flood run: what a normal board would get if
the workers split their time evenly between the eleven requesters.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from bench.bench_bus import Workers, random_positions
from bench.bench_engine import SHIPPED, percentile
from gobuddy.bus.client import BusClient
from gobuddy.bus.engine_messages import EngineRequest, Position as WirePosition
from gobuddy.bus.message import now_ms
from gobuddy.bus.requests import EngineRequestFailed
from tests.mqtt_broker import MosquittoBroker

VISITS, THINK_MS, TIMEOUT_S, EVERY_S = 200, 2000, 8.0, 5.0


@dataclass
class Tally:
    """What happened to one board's requests."""

    latencies_ms: list[float] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def track(self, future: Future, sent: float) -> None:
        def done(f: Future) -> None:
            with self.lock:
                error = f.exception()
                if error is None:
                    self.outcomes["answered"] += 1
                    self.latencies_ms.append((time.perf_counter() - sent) * 1000)
                    self.visits.append(f.result().root.visits)
                elif isinstance(error, EngineRequestFailed) and error.busy:
                    self.outcomes["busy"] += 1
                elif isinstance(error, EngineRequestFailed):
                    self.outcomes[f"error:{error.error.code}"] += 1
                else:
                    self.outcomes["silent"] += 1
        future.add_done_callback(done)


def hint(board: str, n: int, moves: tuple, board_id: str | None) -> EngineRequest:
    return EngineRequest(id=f"{board}:hint:{n}", board_id=board_id, purpose="hint" if board_id else "analysis",
                         max_visits=VISITS, max_time_ms=THINK_MS, deadline_ms=now_ms() + int(TIMEOUT_S * 1000),
                         position=WirePosition(size=9, komi=7.0, rules="chinese", moves=moves))


def drive(clients: dict[str, BusClient], seconds: float, positions: list[tuple], every_s: dict[str, float],
          about_itself: dict[str, bool]) -> dict[str, Tally]:
    """Each board asks every ``every_s[board]`` seconds for ``seconds``; returns the tallies
    once every request is settled."""
    tallies = {board: Tally() for board in clients}
    futures: list[Future] = []
    start = time.perf_counter()
    boards = sorted(clients)
    next_at = {board: start + (i / len(boards)) * min(EVERY_S, every_s[board]) for i, board in enumerate(boards)}
    counts = Counter()
    while time.perf_counter() - start < seconds:
        board = min(next_at, key=next_at.get)
        delay = next_at[board] - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        n = counts[board] = counts[board] + 1
        moves = positions[(hash(board) + n * 7919) % len(positions)]
        sent = time.perf_counter()
        try:
            future = clients[board].request_async(hint(board, n, moves, board if about_itself[board] else None))
        except Exception:
            tallies[board].outcomes["not sent"] += 1
        else:
            tallies[board].track(future, sent)
            futures.append(future)
        next_at[board] += every_s[board]
    for future in futures:
        try:
            future.exception(TIMEOUT_S + 5)
        except Exception:
            pass
    time.sleep(0.2)
    return tallies


def summary(tallies: dict[str, Tally]) -> tuple[int, Counter, list[float], list[int]]:
    outcomes, latencies, visits = Counter(), [], []
    for tally in tallies.values():
        outcomes.update(tally.outcomes)
        latencies += tally.latencies_ms
        visits += tally.visits
    return sum(outcomes.values()), outcomes, latencies, visits


def row(label: str, tallies: dict[str, Tally]) -> str:
    total, outcomes, latencies, visits = summary(tallies)
    answered = outcomes["answered"]
    p50 = f"{statistics.median(latencies) / 1000:.2f} s" if latencies else "-"
    p99 = f"{percentile(latencies, 0.99) / 1000:.2f} s" if latencies else "-"
    mean_visits = f"{statistics.mean(visits):.0f}" if visits else "-"
    return (f"| {label} | {total} | {100 * answered / max(total, 1):.0f}% | {100 * outcomes['busy'] / max(total, 1):.0f}% "
            f"| {outcomes['silent']} | {p50} | {p99} | {mean_visits} |")


def run(board_counts: list[int], worker_counts: list[int], seconds: float) -> str:
    most = max(board_counts + [11])
    boards = tuple(f"board-b{i}" for i in range(1, most + 1))
    lines = [
        "## Engine workers under load (`bench.bench_overload`)",
        "",
        f"Boards ask a hint about themselves every {EVERY_S:.0f} s ({VISITS} visits, {THINK_MS / 1000:.0f} s of thought, "
        f"{TIMEOUT_S:.0f} s to answer: the edge agent's defaults) for {seconds:.0f} s; workers are `python -m "
        f"engine_worker` (shipped model, 1 onnxruntime thread, answer cache off) on the same 2-core machine as "
        f"the broker and the boards. Answered/busy: share of requests; silent: no word by the deadline (the aim "
        f"is none); latency: sending to the final answer; visits: what the searches spent (fewer under load: a "
        f"search shortens to its share of the time left).",
        "",
        "| boards, workers | requests | answered | busy | silent | p50 | p99 | mean visits |",
        "|---|---|---|---|---|---|---|---|",
    ]
    positions = random_positions(2000, seed=7)
    with tempfile.TemporaryDirectory() as tmp_name, MosquittoBroker(boards=boards) as broker:
        tmp = Path(tmp_name)
        clients = {board: BusClient(broker.config(board)) for board in boards}
        for client in clients.values():
            client.start()
        workers = Workers(broker, SHIPPED, tmp)
        try:
            for count in sorted(worker_counts):
                workers.start(count - len(workers.processes))
                for n in board_counts:
                    chosen = {board: clients[board] for board in boards[:n]}
                    load = os.getloadavg()[0]
                    tallies = drive(chosen, seconds, positions, dict.fromkeys(chosen, EVERY_S),
                                    dict.fromkeys(chosen, True))
                    lines.append(row(f"{n} boards, {count} worker{'s' if count > 1 else ''} (load {load:.1f})",
                                     tallies))
            flood_board = boards[10]
            normal = {board: clients[board] for board in boards[:10]}
            every = {**dict.fromkeys(normal, EVERY_S), flood_board: 0.05}
            about = {**dict.fromkeys(normal, True), flood_board: False}
            tallies = drive({**normal, flood_board: clients[flood_board]}, seconds, positions, every, about)
        finally:
            for client in clients.values():
                client.stop()
            workers.stop()
    normal_tallies = {board: tallies[board] for board in normal}
    flood_tally = {flood_board: tallies[flood_board]}
    answered_each = [t.outcomes["answered"] for t in normal_tallies.values()]
    asked_each = [sum(t.outcomes.values()) for t in normal_tallies.values()]
    lines += [
        row(f"flood: 10 normal boards, {max(worker_counts)} worker(s)", normal_tallies),
        row("flood: the flooding board (20 requests a second about no board)", flood_tally),
        "",
        f"In the flood run each normal board asked {min(asked_each)}-{max(asked_each)} times and got "
        f"{min(answered_each)}-{max(answered_each)} answers: the least served normal board got "
        f"{100 * min(a / max(q, 1) for a, q in zip(answered_each, asked_each)):.0f}% of what it asked, against a "
        f"fair share of everything it asked (its requests are far below 1/11 of the workers' time). Workers serve "
        f"requesters in turn, refuse what they could not answer in time with `busy`, and acknowledge what they "
        f"queue, so a board is never left waiting in silence.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, nargs="*", default=[10, 20, 50, 100])
    parser.add_argument("--workers", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=40.0)
    args = parser.parse_args(argv)
    print(run(args.boards, args.workers, args.seconds))


if __name__ == "__main__":
    main()
