"""Play latency: from a click on the Play page's board to the engine's stone on it, and
from a click on "Hint" to the engine's top five on the board.

The real stack: a Mosquitto, an engine worker (``python -m engine_worker`` with a small
random-weight model, as the Live bench), the recorder and the dashboard under
``streamlit run``; headless Chromium plays on the Play page as a person does. In the
page a MutationObserver watches the clickable board (``dashboard.board_svg``'s SVG)
and records ``Date.now()`` the first time each move count (``data-move-count``)
shows, and the first time a move count shows with the engine's recommendations on it
(a hint). The bench takes ``time.time()`` just before each click; both clocks are this
machine's wall clock. An observer account on the broker records when the engine's
request and answer crossed it (and the worker's own search time), so the page's share
is the click-to-stone time less the engine's round trip.

Variants: ``idle``; ``busy``: ``--busy`` busy loops (``while True: pass``, not niced)
beside the stack for the whole measurement; a ``-teach`` suffix plays with "Teach me"
on (the teacher judges each move before the engine replies: the engine's time is then
the judge's round trip plus the reply's; a move the teacher stops is shown on the board
with the better point, the bench keeps it and times "Keep my move" -> the engine's
stone), without it "Teach me" is switched off.

    python -m bench.bench_play_latency [--moves 20] [--hints 8] [--busy 2]
                                       [--variants idle,busy,idle-teach,busy-teach]

Prints a markdown section: click -> engine stone and hint -> top five, p50/p95/p99,
one table per variant.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.bench_live_latency import busy_loops, percentile
from dashboard.store import Store
from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.inbox import Received
from gobuddy.go.coords import GTP_COLUMNS, color_from_str, from_gtp, to_gtp
from gobuddy.go.position import Position
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, chromium, engine_worker, recorder, wait_online
from tests.mqtt_broker import MosquittoBroker

OBSERVER = """() => {
  window.__shown = {};
  const mark = () => {
    for (const svg of document.querySelectorAll('svg.go-board[data-move-count]')) {
      const n = svg.getAttribute('data-move-count');
      const key = n + (svg.querySelector('g.rec, .rec') ? 'h' : '');
      if (!(key in window.__shown)) window.__shown[key] = Date.now();
    }
  };
  new MutationObserver(mark).observe(document.body,
    {subtree: true, childList: true, attributes: true, attributeFilter: ['data-move-count']});
  mark();
}"""
BOARD = "div.click-board svg.go-board"
SHOWN = "(key) => window.__shown[key] || null"


@dataclass
class BusLog:
    """What an observer saw cross the broker: engine requests and answers by id (arrival
    time here, ms), the worker's search time, and the web board's moves."""

    requests: dict[str, tuple[str, float]] = field(default_factory=dict)  # id -> (purpose, ms)
    answers: dict[str, tuple[float, float]] = field(default_factory=dict)  # id -> (ms, worker elapsed ms)
    moves: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_message(self, received: Received) -> None:
        now = time.time() * 1000
        family, data = received.info.family, received.payload
        with self.lock:
            if family == "engine_request":
                self.requests[data["id"]] = (data["purpose"], now)
            elif family == "engine_response" and received.kind == "engine_answer" and not data.get("is_during_search"):
                self.answers[data["id"]] = (now, float(data.get("elapsed_ms") or 0.0))
            elif family == "event" and received.info.board_id and received.info.board_id.startswith("web-"):
                kind = data["type"]
                if kind == "game_started":
                    self.moves = []
                elif kind == "move":
                    self.moves.append((data["color"], data["vertex"]))
                elif kind == "pass":
                    self.moves.append((data["color"], "pass"))
                elif kind == "undo" and self.moves:
                    self.moves.pop()

    def round_trip_after(self, purpose: str, since_ms: float) -> tuple[float, float] | None:
        """(request -> answer on the broker, worker search) of the first ``purpose``
        request seen after ``since_ms`` that has its answer."""
        with self.lock:
            for rid, (p, at) in sorted(self.requests.items(), key=lambda kv: kv[1][1]):
                if p == purpose and at >= since_ms and rid in self.answers:
                    answered, elapsed = self.answers[rid]
                    return answered - at, elapsed
        return None


def click_vertex(page: Any, vertex: str, size: int = 9) -> None:
    """Click an intersection of the Play page's board."""
    box = page.locator(BOARD).first.bounding_box()
    col, row = GTP_COLUMNS.index(vertex[0]), int(vertex[1:])
    span = size - 1 + 2.2
    page.mouse.click(box["x"] + (1.1 + col) / span * box["width"],
                     box["y"] + (1.1 + size - row) / span * box["height"])


def choose_move(moves: list[tuple[str, str]], rng: random.Random, size: int = 9) -> str | None:
    pos = Position(size)
    for color, vertex in moves:
        pos.play(from_gtp(vertex, size), color_from_str(color))
    options = [p for p in pos.legal_moves() if p != pos.pass_point and not pos.is_eye_like(p, pos.to_play)]
    if not options:
        return None
    return to_gtp(rng.choice(options), size)


def board_moves(page: Any) -> int | None:
    """The move count of the board the page shows now."""
    count = page.evaluate("() => document.querySelector('div.click-board svg.go-board')"
                          "?.getAttribute('data-move-count') ?? null")
    return None if count is None else int(count)


def caught_up(page: Any, log: BusLog, timeout_s: float = 5.0) -> int:
    """The number of moves on the bus once it matches the board's (the page publishes
    the moves it drew after drawing them): the next move is chosen from these."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and board_moves(page) not in (None, len(log.moves)):
        time.sleep(0.02)
    return len(log.moves)


def wait_shown(page: Any, key: str, timeout_s: float) -> float | None:
    """When the board first showed ``key`` (ms), or None."""
    found = wait_which(page, (key,), timeout_s)
    return None if found is None else found[1]


def wait_which(page: Any, keys: tuple[str, ...], timeout_s: float) -> tuple[str, float] | None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for key in keys:
            at = page.evaluate(SHOWN, key)
            if at is not None:
                return key, float(at)
        time.sleep(0.01)
    return None


@dataclass
class Figures:
    stone: list[float] = field(default_factory=list)  # click -> engine stone shown (ms)
    engine: list[float] = field(default_factory=list)  # request -> answer on the broker (ms)
    search: list[float] = field(default_factory=list)  # the worker's own search time (ms)
    hint: list[float] = field(default_factory=list)
    hint_engine: list[float] = field(default_factory=list)
    share: list[float] = field(default_factory=list)  # click -> stone less the engine's round trip
    hint_share: list[float] = field(default_factory=list)
    stop: list[float] = field(default_factory=list)  # click -> the teacher's stop on the board
    stop_engine: list[float] = field(default_factory=list)  # the judge's round trip
    stop_share: list[float] = field(default_factory=list)
    keep: list[float] = field(default_factory=list)  # "Keep my move" -> engine stone
    keep_engine: list[float] = field(default_factory=list)
    keep_share: list[float] = field(default_factory=list)
    missed: int = 0


def start_game(page: Any, teach: bool) -> None:
    """Start a game (the form's defaults: a newcomer's level) with "Teach me" ``teach``."""
    page.get_by_role("button", name="Start the game").click()
    page.locator(BOARD).first.wait_for(timeout=60_000)
    page.get_by_text("Your move").wait_for(timeout=60_000)
    switch = page.get_by_role("switch", name="Teach me")
    if switch.is_checked() != teach:
        switch.click(force=True)
        page.wait_for_timeout(300)
        assert switch.is_checked() == teach
    page.wait_for_timeout(500)


def engine_trip(log: BusLog, since_ms: float, teach: bool) -> float | None:
    """The engine's time for a move after ``since_ms``: the reply's round trip, plus
    the judge's (an ``analysis`` request) with the teacher on."""
    reply = log.round_trip_after("genmove", since_ms)
    if reply is None:
        return None
    if not teach:
        return reply[0]
    judge = log.round_trip_after("analysis", since_ms)
    return None if judge is None else judge[0] + reply[0]


def keep_move(page: Any, log: BusLog, count: int, out: Figures) -> bool:
    """The teacher stopped move ``count + 1``: keep it and time "Keep my move" -> the
    engine's stone; False when it never showed."""
    box = page.get_by_role("button", name="Keep my move").bounding_box()
    sent = time.time() * 1000
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    shown = wait_shown(page, str(count + 2), 30)
    if shown is None:
        return False
    out.keep.append(shown - sent)
    trip = log.round_trip_after("genmove", sent - 5)
    if trip:
        out.keep_engine.append(trip[0])
        out.keep_share.append(shown - sent - trip[0])
    return True


def play(page: Any, log: BusLog, moves: int, hints: int, seed: int, teach: bool = False) -> Figures:
    """``moves`` clicks answered by the engine and ``hints`` hints, new games as needed;
    with ``teach`` the teacher's stops are kept (and timed apart)."""
    rng = random.Random(seed)
    out = Figures()
    page.evaluate(OBSERVER)
    start_game(page, teach)
    hint_every = max(1, moves // max(1, hints)) if hints else 0
    done = 0
    while done < moves:
        count = caught_up(page, log)
        if count >= 30 or page.get_by_text("Your move").count() == 0:
            page.get_by_role("button", name="New game").click()
            start_game(page, teach)
            page.evaluate(OBSERVER)
            continue
        if hint_every and done % hint_every == 0 and len(out.hint) < hints:
            box = page.get_by_role("button", name="Hint").bounding_box()
            sent = time.time() * 1000
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            shown = wait_shown(page, f"{count}h", 30)
            if shown is None:
                out.missed += 1
            else:
                out.hint.append(shown - sent)
                trip = log.round_trip_after("hint", sent - 5)
                if trip:
                    out.hint_engine.append(trip[0])
                    out.hint_share.append(shown - sent - trip[0])
            page.wait_for_timeout(300)
        vertex = choose_move(list(log.moves), rng)
        if vertex is None:
            page.get_by_role("button", name="New game").click()
            start_game(page, teach)
            continue
        sent = time.time() * 1000
        click_vertex(page, vertex)
        found = wait_which(page, (str(count + 2), f"{count + 1}h"), 30)
        if found is not None and found[0].endswith("h"):  # the teacher's stop: the better point on the board
            out.stop.append(found[1] - sent)
            judge = log.round_trip_after("analysis", sent - 5)
            if judge:
                out.stop_engine.append(judge[0])
                out.stop_share.append(found[1] - sent - judge[0])
            page.get_by_role("button", name="Keep my move").wait_for(timeout=10_000)
            found = ("kept", 0.0) if keep_move(page, log, count, out) else None
        if found is None:  # (a click lost while the board was being drawn again, say)
            out.missed += 1
            page.reload()  # a new browser session: the game is gone, start another
            page.get_by_role("button", name="Start the game").wait_for(timeout=60_000)
            page.evaluate(OBSERVER)
            start_game(page, teach)
            continue
        done += 1
        if found[0] == "kept":
            page.wait_for_timeout(400)
            continue
        shown = found[1]
        out.stone.append(shown - sent)
        trip = log.round_trip_after("genmove", sent - 5)
        both = engine_trip(log, sent - 5, teach)
        if trip and both is not None:
            out.engine.append(both)
            out.search.append(trip[1])
            out.share.append(shown - sent - both)
        page.wait_for_timeout(400)  # a pause before the next move (kept from the plotly board's days: same figures)
    return out


def measure(moves: int, hints: int, load: int, seed: int = 3, teach: bool = False) -> Figures:
    with tempfile.TemporaryDirectory() as tmp, MosquittoBroker() as broker:
        tmp_path = Path(tmp)
        url = f"sqlite:///{tmp_path / 'bench.db'}"
        store = Store.open(url)
        log = BusLog()
        observer = BusClient(broker.config("observer"))
        observer.subscribe(topics.everything_filter(), log.on_message)
        observer.start()
        try:
            with engine_worker(broker, tmp_path) as worker, recorder(broker, store, url, tmp_path) as rec:
                wait_online(broker.config("observer-2"), {"engine": 1, "recorder": 1},
                            [p for p in (worker, rec) if hasattr(p, "check_alive")])
                args = dashboard_args(url, broker)
                with StreamlitServer(args, log_path=tmp_path / "streamlit.log") as server, chromium() as browser:
                    page = browser.new_page(viewport={"width": 1400, "height": 1100})
                    page.set_default_timeout(30_000)
                    page.goto(server.url("play"))
                    page.get_by_role("button", name="Start the game").wait_for(timeout=90_000)
                    with busy_loops(load):
                        time.sleep(1.0 if load else 0.0)
                        return play(page, log, moves, hints, seed, teach)
        finally:
            observer.stop()
            store.close()


def row(label: str, values: list[float]) -> str:
    if not values:
        return f"| {label} | 0 | – | – | – | – |"
    return (f"| {label} | {len(values)} | {percentile(values, 0.5):.0f} | {percentile(values, 0.95):.0f} | "
            f"{percentile(values, 0.99):.0f} | {statistics.fmean(values):.0f} |")


def report(name: str, load: int, f: Figures) -> list[str]:
    teach = "Teach me on" if name.endswith("-teach") else "Teach me off"
    lines = [f"**{name}** ({'no load' if not load else f'{load} busy loops (`while True: pass`, not niced)'}; "
             f"{teach}; {f.missed} not shown within 30 s; load average {os.getloadavg()[0]:.1f} at the end):\n",
             "| what | n | p50 ms | p95 ms | p99 ms | mean ms |", "|---|---|---|---|---|---|",
             row("click -> engine stone shown", f.stone),
             row("  of which the engine (request -> answer on the broker; with the teacher: judge + reply)", f.engine),
             row("  the page's share (the rest)", f.share),
             row("  the worker's own search", f.search),
             row("Hint click -> top five shown", f.hint),
             row("  of which the engine", f.hint_engine),
             row("  the page's share", f.hint_share)]
    if f.stop or f.keep:
        lines += [row("click -> the teacher's stop shown", f.stop),
                  row("  of which the judge", f.stop_engine),
                  row("  the page's share", f.stop_share),
                  row("Keep my move -> engine stone shown", f.keep),
                  row("  of which the engine", f.keep_engine),
                  row("  the page's share", f.keep_share)]
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--hints", type=int, default=8)
    parser.add_argument("--busy", type=int, default=2, help="busy loops in the busy variant (one per core)")
    parser.add_argument("--variants", default="idle,busy")
    args = parser.parse_args(argv)
    print("## Play page latency (click -> the engine's stone in the browser)\n")
    print("The real stack (Mosquitto, `python -m engine_worker` with a small random-weight model, the recorder, "
          "`streamlit run`), headless Chromium clicking the Play page's board as a person does; times from the "
          "click to the first board that shows the move (a MutationObserver on the SVG board in the page).\n")
    for variant in args.variants.split(","):
        load = 0 if variant.startswith("idle") else args.busy
        figures = measure(args.moves, args.hints, load, teach=variant.endswith("-teach"))
        print("\n".join(report(variant, load, figures)))


if __name__ == "__main__":
    main()
