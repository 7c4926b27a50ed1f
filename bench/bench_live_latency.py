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

    python -m bench.bench_live_latency [--moves 60] [--gap 0.3] [--interval 0.1] [--no-worker]

Prints a markdown section (p50/p90/p99/max over the moves).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from gobuddy.go.coords import to_gtp
from gobuddy.go.position import Position
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, chromium, engine_worker, wait_online
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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def measure(moves: int, gap_s: float, interval_s: float, with_worker: bool) -> tuple[list[float], int]:
    """Latencies in ms of the moves that showed, and how many never showed."""
    vertices = game_moves(moves)
    with tempfile.TemporaryDirectory() as tmp, MosquittoBroker() as broker:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        worker = engine_worker(broker, Path(tmp)) if with_worker else None
        if worker:
            worker.__enter__()
            wait_online(broker.config("observer"), {"engine": 1})
        try:
            args = dashboard_args(url, broker, "--live-interval", str(interval_s))
            with StreamlitServer(args) as server, chromium() as browser, \
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
        finally:
            if worker:
                worker.__exit__(None, None, None)
    latencies = [seen[n] - sent[n] for n in sent if n in seen]
    return latencies, len(sent) - len(latencies)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between moves")
    parser.add_argument("--interval", type=float, default=0.1, help="the Live page's refresh interval (s)")
    parser.add_argument("--no-worker", dest="worker", action="store_false",
                        help="run without an engine worker (by default one answers the page's analysis requests)")
    args = parser.parse_args(argv)
    latencies, missed = measure(args.moves, args.gap, args.interval, args.worker)
    print("## Live page latency (broker -> stone in the browser)\n")
    print(f"{args.moves} moves of a scripted 9x9 game, one every {args.gap:g} s, Live page refresh "
          f"{args.interval:g} s, headless Chromium, {'with' if args.worker else 'without'} an engine worker "
          "answering the dashboard's analysis requests.\n")
    if not latencies:
        print("No move showed on the page.\n")
        return
    print("| moves shown | missed | p50 ms | p90 ms | p99 ms | max ms | mean ms |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {len(latencies)} | {missed} | {percentile(latencies, 0.5):.0f} | {percentile(latencies, 0.9):.0f} | "
          f"{percentile(latencies, 0.99):.0f} | {max(latencies):.0f} | {statistics.fmean(latencies):.0f} |\n")


if __name__ == "__main__":
    main()
