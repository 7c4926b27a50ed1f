"""Live latency: from a move's message on the broker to its stone on the Live page.

A scripted board publishes a game (each move as the edge agent does: the game event,
then the retained board state) to a real Mosquitto; the dashboard runs under
``streamlit run`` and headless Chromium shows its Live page. In the page a
MutationObserver records ``Date.now()`` the first time the board's SVG shows each move
count (``data-move-count``, set only when the stone is drawn); the bench takes
``time.time()`` just before publishing the move. Both clocks are this machine's wall
clock. An engine worker runs too (``python -m engine_worker`` with a small random-weight
model; ``--no-worker`` leaves it out), so the page's analysis requests and answers cross
the broker and load the machine as they do in production.

Two variants, one row each: ``idle`` (nothing else of ours runs) and ``busy``: two more
engine workers (same model) searching all the time, kept busy by another requester
(a second board's account) with two requests in flight each, back to back — the
machine as it is with several boards asking at once; ``--loops N`` adds N plain busy
loops (``while True: pass``) on top. The load starts before the page opens and runs
until the last move was seen.

    python -m bench.bench_live_latency [--moves 60] [--gap 0.3] [--interval 0.1] [--no-worker]
                                       [--variants idle,busy] [--busy-workers 2] [--loops 0]

Prints a markdown section (p50/p90/p99/max over the moves, one row per variant).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

from bench.bench_engine import percentile
from gobuddy.go.coords import to_gtp
from gobuddy.go.position import Position
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import ServiceProcess, StreamlitServer, broker_args, chromium, engine_worker, wait_online
from tests.e2e.stand_ins import ScriptedBoard
from tests.mqtt_broker import MosquittoBroker

OBSERVER = """() => {
  window.__seen = {};
  const mark = () => {
    for (const svg of document.querySelectorAll('svg.go-board[data-move-count]')) {
      const n = svg.getAttribute('data-move-count');
      if (!(n in window.__seen)) window.__seen[n] = Date.now();
    }
  };
  new MutationObserver(mark).observe(document.body,
    {subtree: true, childList: true, attributes: true, attributeFilter: ['data-move-count']});
  mark();
}"""


def game_moves(count: int, seed: int = 7, size: int = 9) -> list[str]:
    """``count`` legal moves of a random game that fills no own eyes (no passes)."""
    rng = random.Random(seed)
    pos = Position(size)
    moves: list[str] = []
    while len(moves) < count:
        options = [p for p in pos.legal_moves() if not pos.is_eye_like(p, pos.to_play)]
        if not options:
            raise RuntimeError(f"the random game ran out of moves after {len(moves)}; use another seed")
        p = rng.choice(options)
        pos.play(p)
        moves.append(to_gtp(p, size))
    return moves


@contextlib.contextmanager
def searching_workers(broker: MosquittoBroker, tmp: Path, count: int, requester: str = "board-2") -> Iterator[None]:
    """``count`` more engine workers (the small model of ``engine_worker``) searching
    all the time: ``requester`` keeps two analysis requests in flight per worker, back
    to back, about positions of a random game (no board: nothing is superseded)."""
    if count <= 0:
        yield
        return
    from dashboard.position_request import position_request
    from tests.tiny_model import build_tiny_model
    from gobuddy.bus.client import BusClient

    model = build_tiny_model(size=9, blocks=1, channels=8, seed=5, name="e2e-tiny").save(tmp / "load.onnx")
    workers = [ServiceProcess("engine_worker", [*broker_args(broker, f"engine-load-{i}"), "--model", str(model),
                                                "--visits", "32", "--status-interval", "1", "--nice", "10"],
                                 tmp / f"load{i}.log")
               for i in range(1, count + 1)]
    stop = threading.Event()
    with contextlib.ExitStack() as stack:
        for w in workers:
            stack.enter_context(w)
        wait_online(broker.config("observer-2"), {"engine": count}, workers)
        client = BusClient(broker.config(requester))
        client.start()
        stack.callback(client.stop)
        vertices = game_moves(40, seed=11)

        def keep_asking() -> None:
            rng = random.Random(threading.get_ident())
            while not stop.is_set():
                k = rng.randrange(len(vertices))
                moves = [("B" if i % 2 == 0 else "W", v) for i, v in enumerate(vertices[:k])]
                request = position_request("analysis", size=9, komi=7.0, rules="chinese", moves=moves,
                                           to_play="B" if k % 2 == 0 else "W", visits=32, timeout_s=10)
                try:
                    client.request_async(request).result(15)
                except Exception:  # busy or late: ask again
                    time.sleep(0.05)

        threads = [threading.Thread(target=keep_asking, daemon=True) for _ in range(2 * count)]
        for t in threads:
            t.start()
        stack.callback(stop.set)
        time.sleep(1.0)
        yield


@contextlib.contextmanager
def busy_loops(n: int) -> Iterator[None]:
    procs = [subprocess.Popen([sys.executable, "-c", "while True:\n    pass\n"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(5)


def measure(moves: int, gap_s: float, interval_s: float, with_worker: bool, busy_workers: int = 0,
            loops: int = 0) -> tuple[list[float], int, float]:
    """Latencies in ms of the moves that showed, how many never showed, and the load
    average (1 min) at the end."""
    vertices = game_moves(moves)
    with tempfile.TemporaryDirectory() as tmp, MosquittoBroker(boards=("board-1", "board-2")) as broker, \
            (engine_worker(broker, Path(tmp)) if with_worker else contextlib.nullcontext()):
        if with_worker:
            wait_online(broker.config("observer"), {"engine": 1})
        args = dashboard_args(f"sqlite:///{Path(tmp) / 'bench.db'}", broker, "--live-interval", str(interval_s))
        with searching_workers(broker, Path(tmp), busy_workers), busy_loops(loops), \
                StreamlitServer(args) as server, chromium() as browser, \
                ScriptedBoard(broker.config("board-1")) as board:
            board.start("board-1-bench")
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server.url("?board=board-1"))
            page.wait_for_selector('svg.go-board[data-move-count="0"]', timeout=60_000)
            time.sleep(1.0)
            page.evaluate(OBSERVER)
            sent: dict[int, float] = {}
            for number, vertex in enumerate(vertices, start=1):
                sent[number] = time.time() * 1000
                board.play(vertex)
                time.sleep(gap_s)
            time.sleep(2.0)
            seen = {int(k): float(v) for k, v in page.evaluate("() => window.__seen").items()}
            load = os.getloadavg()[0]
    latencies = [seen[n] - sent[n] for n in sent if n in seen]
    return latencies, len(sent) - len(latencies), load


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between moves")
    parser.add_argument("--interval", type=float, default=0.1, help="the Live page's refresh interval (s)")
    parser.add_argument("--no-worker", dest="worker", action="store_false",
                        help="run without an engine worker (by default one answers the page's analysis requests)")
    parser.add_argument("--variants", default="idle,busy")
    parser.add_argument("--busy-workers", type=int, default=2, help="engine workers searching in the busy variant")
    parser.add_argument("--loops", type=int, default=0, help="plain busy loops added in the busy variant")
    args = parser.parse_args(argv)
    print("## Live page latency (broker -> stone in the browser)\n")
    print(f"{args.moves} moves of a scripted 9x9 game, one every {args.gap:g} s, Live page refresh "
          f"{args.interval:g} s, headless Chromium, {'with' if args.worker else 'without'} an engine worker "
          "answering the dashboard's analysis requests. Busy: "
          f"{args.busy_workers} more engine workers searching all the time (another requester keeps two requests "
          "in flight per worker)" + (f" and {args.loops} busy loops" if args.loops else "") + ".\n")
    print("| variant | moves shown | missed | p50 ms | p90 ms | p99 ms | max ms | mean ms | load avg (1 min) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for variant in args.variants.split(","):
        busy = variant == "busy"
        latencies, missed, load = measure(args.moves, args.gap, args.interval, args.worker,
                                          args.busy_workers if busy else 0, args.loops if busy else 0)
        if not latencies:
            print(f"| {variant} | 0 | {missed} | – | – | – | – | – | {load:.1f} |")
            continue
        print(f"| {variant} | {len(latencies)} | {missed} | {percentile(latencies, 0.5):.0f} | "
              f"{percentile(latencies, 0.9):.0f} | {percentile(latencies, 0.99):.0f} | {max(latencies):.0f} | "
              f"{statistics.fmean(latencies):.0f} | {load:.1f} |")
    print()


if __name__ == "__main__":
    main()
