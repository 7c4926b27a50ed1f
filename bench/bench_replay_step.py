"""Replay step time: from a key press (or a click on "Next"/"Back") on the Replay page to
the board showing the next position in the browser.

A stored 9x9 game (``--moves`` moves of a random game that fills no own eyes, as a
beginner's game looks to the engine: many mistakes), every position analysed by the
shipped model (``models/gobuddy-9x9.onnx``, ``--visits`` visits, with ownership and
principal variations, as the worker stores them), imported into a SQLite store; the
dashboard runs under ``streamlit run`` with a real Mosquitto (as deployed: the engine
buttons show) and headless Chromium opens the Replay page on that game. In the page a
MutationObserver records ``Date.now()`` the first time the board's SVG shows each move
count (``data-move-count``) and the first time the server's panel beside it shows each
position (``.st-key-replay_panel_at_<n>``), and a listener on the document (before the
page's own) the time of the key press or of the pointer going down on the button, so the
time Playwright takes to find the button and move to it is not counted. Steps go forward
through the game and back again, alternately by the keyboard (Right/Left) and by the
buttons, each after the page's run for the previous one has ended and ``--gap`` seconds
more (a person reading the board).

The board steps in the browser (``dashboard/views/replay_stepper``): "step -> board" is
the key or button to the new board on screen, with no run of the page; "step -> panel
follows" is the time until the server, told the move 200 ms after the last step, has
drawn its panel for it (the verdict, the candidates, the engine buttons). "browser main
thread busy per step" is Chrome's own count of the page's main thread at work
(``TaskDuration`` of the DevTools protocol's ``Performance.getMetrics``) from the step
to the end of the panel's run: the browser's share of a step, less swayed by the
machine's other load than the times (a busy thread's time still stretches when it
waits for a core).

Variants: ``idle`` (nothing else of ours runs) and ``busy``: ``--loops`` plain busy loops
(``while True: pass``, not niced; 2 by default, one per core) for the whole measurement.

    python -m bench.bench_replay_step [--moves 60] [--steps 40] [--visits 64] [--gap 0.2]
                                      [--variants idle,busy] [--loops 2]

Prints a markdown section (p50/p95/p99/max over the steps, one row per variant).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from bench.bench_live_latency import OBSERVER, busy_loops, game_moves, percentile
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.record import GameRecord
from gobuddy.go.sgf import dump_sgf
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import REPO, StreamlitServer, chromium
from tests.mqtt_broker import MosquittoBroker

MODEL = REPO / "models" / "gobuddy-9x9.onnx"
INPUTS = """() => {
  const input = () => { window.__input = Date.now(); };
  document.addEventListener('keydown', input, true);
  document.addEventListener('pointerdown', input, true);
  window.__panel = {};
  const mark = () => {
    for (const el of document.querySelectorAll('[class*="st-key-replay_panel_at_"]')) {
      const n = /st-key-replay_panel_at_(\\d+)/.exec(el.className)[1];
      if (!(n in window.__panel)) window.__panel[n] = Date.now();
    }
  };
  new MutationObserver(mark).observe(document.body, {subtree: true, childList: true});
}"""  # when the key or the pointer went down, when the panel showed each position; the boards' times are
# bench_live_latency's OBSERVER
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def sgf_of(moves: list[str], size: int = 9) -> str:
    """A plain SGF record of ``moves`` (GTP vertices, black first)."""
    played = [(BLACK if i % 2 == 0 else WHITE, from_gtp(v, size)) for i, v in enumerate(moves)]
    return dump_sgf(GameRecord.from_moves(size, 7.0, played, date="2026-01-20", black="Ana", white="Ben",
                                          result="W+12"))


def analysed_game(db_url: str, moves: int, visits: int, seed: int = 7) -> str:
    """Store a random game of ``moves`` moves with every position analysed by the shipped
    model; return its id."""
    from dashboard.store import Store
    from engine_worker.answer import wire_answer
    from gobuddy.ai.analysis import analyse
    from gobuddy.ai.features import game_history
    from gobuddy.ai.mcts import Search, SearchConfig
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator
    from gobuddy.go.game import Game, Ruleset

    vertices = game_moves(moves, seed=seed)
    store = Store.open(db_url)
    try:
        game_id = store.import_sgf(sgf_of(vertices))[0]
        search = Search(OnnxEvaluator(MODEL), SearchConfig(komi=7.0))
        keys = store.position_keys(game_id)
        for n, key in sorted(keys.items()):
            game = Game.from_gtp(9, Ruleset("chinese", 7.0), "B", (),
                                 [("B" if i % 2 == 0 else "W", v) for i, v in enumerate(vertices[:n])])
            analysis = analyse(search, game.position, game_history(game), visits=visits)
            answer = wire_answer(analysis, id=f"bench-{n}", worker="bench").to_dict()
            store.save_analysis(key, analysis.model, answer, move_count=n, game_id=game_id, move_number=n)
        return game_id
    finally:
        store.close()


@contextlib.contextmanager
def replay_page(db_url: str, game_id: str, tmp: Path) -> Iterator[tuple[Any, Any]]:
    """The Replay page of ``game_id`` open in headless Chromium, the game's start shown,
    and a DevTools session on it with Chrome's performance counters on."""
    with MosquittoBroker() as broker, \
            StreamlitServer(dashboard_args(db_url, broker), log_path=tmp / "streamlit.log") as server, \
            chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        page.goto(server.url(f"replay?game={game_id}"))
        page.wait_for_selector('svg.go-board[data-move-count="0"]')
        page.wait_for_selector(IDLE)
        time.sleep(1.0)
        page.evaluate(INPUTS)
        page.evaluate(OBSERVER)
        cdp = page.context.new_cdp_session(page)  # Chrome's own counters: the main thread's busy time
        cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
        yield page, cdp


def step(page: Any, forward: bool, by_key: bool) -> None:
    if by_key:
        page.keyboard.press("ArrowRight" if forward else "ArrowLeft")
    else:
        page.get_by_role("button", name="Next" if forward else "Back", exact=True).click()


def busy_ms(cdp: Any) -> float:
    """The page's main thread's busy time so far (Chrome's ``TaskDuration``), in ms."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return 1000 * next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def measure(page: Any, cdp: Any, steps: int, last: int, gap_s: float) -> tuple[list[float], list[float], list[float], int]:
    """Step times (ms) to the board and to the server's panel showing the position, the
    browser's main thread's busy time per step (ms, from the step to the end of the
    panel's run), and how many steps never showed (within 30 s)."""
    to_board, to_panel, busy, missed = [], [], [], 0
    n = 0
    for i in range(steps):
        forward = n < last if i < steps // 2 or n == 0 else False
        target = n + 1 if forward else n - 1
        page.evaluate(f"() => {{ delete window.__seen['{target}']; delete window.__panel['{target}']; "
                      "window.__input = null; }")
        before = busy_ms(cdp)
        step(page, forward, by_key=i % 2 == 0)
        try:
            page.wait_for_selector(f'svg.go-board[data-move-count="{target}"]', timeout=30_000)
            page.wait_for_selector(f".st-key-replay_panel_at_{target}", state="attached", timeout=30_000)
            page.wait_for_selector(IDLE, timeout=30_000)
        except Exception:  # a step lost: counted, the next one goes on from where the page is
            missed += 1
            n = int(page.locator("svg.go-board[data-move-count]").first.get_attribute("data-move-count"))
            continue
        shown, panel, started = page.evaluate(
            f"() => [window.__seen['{target}'] || null, window.__panel['{target}'] || null, window.__input]")
        if shown is not None and panel is not None and started is not None:
            to_board.append(float(shown) - started)
            to_panel.append(float(panel) - started)
            busy.append(busy_ms(cdp) - before)
        n = target
        time.sleep(gap_s)
    return to_board, to_panel, busy, missed


def row(what: str, values: list[float], missed: int, load: float) -> str:
    if not values:
        return f"| {what} | 0 | {missed} | – | – | – | – | – | {load:.1f} |"
    return (f"| {what} | {len(values)} | {missed} | {percentile(values, 0.5):.0f} | {percentile(values, 0.95):.0f} | "
            f"{percentile(values, 0.99):.0f} | {max(values):.0f} | {statistics.fmean(values):.0f} | {load:.1f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=60, help="moves of the stored game")
    parser.add_argument("--steps", type=int, default=40, help="steps measured per variant (half forward, half back)")
    parser.add_argument("--visits", type=int, default=64, help="visits of each stored analysis")
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between a step's end and the next step")
    parser.add_argument("--variants", default="idle,busy")
    parser.add_argument("--loops", type=int, default=2, help="busy loops in the busy variant")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        game_id = analysed_game(url, args.moves, args.visits)
        print("## Replay step time (key or button -> the next position on the board)\n")
        print(f"A stored 9x9 game of {args.moves} moves, every position analysed by the shipped model "
              f"({args.visits} visits, ownership and lines); the dashboard under `streamlit run` with a broker, "
              f"headless Chromium on the Replay page; {args.steps} steps per variant, forward then back, "
              "alternately Right/Left and the Next/Back buttons. Busy: "
              f"{args.loops} busy loops (`while True: pass`, not niced).\n")
        print("| variant | steps | missed | p50 ms | p95 ms | p99 ms | max ms | mean ms | load avg (1 min) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for variant in args.variants.split(","):
            loops = args.loops if variant == "busy" else 0
            with busy_loops(loops), replay_page(url, game_id, Path(tmp)) as (page, cdp):
                board, panel, busy, missed = measure(page, cdp, args.steps, args.moves, args.gap)
                load = os.getloadavg()[0]
            print(row(f"{variant}: step -> board", board, missed, load))
            print(row(f"{variant}: step -> panel follows", panel, missed, load))
            print(row(f"{variant}: browser main thread busy per step", busy, missed, load))
        print()


if __name__ == "__main__":
    main()
