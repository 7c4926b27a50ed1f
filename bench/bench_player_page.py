"""The Player page on 10,000 games: how long its queries take, and the whole page run.

A fresh SQLite history (WAL, as the dashboard uses) is filled with ``--games`` generated
games of three people against each other and against engine levels, 40 moves each, with
their stored reviews (``tests.dashboard.player_data.fill``: every move judged, so
``reviewed_moves`` holds a row per move). Then, for each person in turn, ``--repeats``
times:

- **queries**: what the page reads, in the order it reads it: the player list
  (``Store.players``), the history (``Store.player_history``: games with their
  reports, first moves, mistake kinds, the week's three biggest mistakes, level
  changes) and the rank estimate;
- **page**: the page script run server-side, as ``streamlit.testing`` runs it
  (``AppTest``: the dashboard's entry, the navigation, the Player page with its three
  plotly figures and tables), from the rerun to the last element; the browser's own
  drawing is not in it.

    python -m bench.bench_player_page [--games 10000] [--repeats 10] [--db FILE]

``--db FILE``: fill that SQLite file when it does not exist, and use it as it is when it
does (filling 10,000 games takes minutes on a shared machine; the file is migrated).

Prints a markdown section: p50/p95/max per person and in all, the fill time, the
database size, the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.bench_live_latency import percentile
from dashboard import rank_estimate
from dashboard.store import Store
from tests.dashboard.player_data import PEOPLE, fill


def query_once(store: Store, player_id: int) -> tuple[float, float]:
    """(wall s, CPU s of this process) of the page's queries for one player."""
    started, cpu = time.perf_counter(), time.process_time()
    store.players()
    history = store.player_history(player_id)
    losses = [g.mean_loss for g in history.games if g.mean_loss is not None]
    rank_estimate.estimate(losses, [(g.opponent_level, g.outcome) for g in history.games
                                    if g.opponent_level and g.outcome])
    return time.perf_counter() - started, time.process_time() - cpu


def page_runs(db_url: str, names: list[str], repeats: int) -> dict[str, list[tuple[float, float]]]:
    """The page script run by AppTest, ``repeats`` times per person (after one warm run)."""
    from streamlit import config as streamlit_config
    from streamlit.testing.v1 import AppTest

    streamlit_config.set_option("server.address", "127.0.0.1")
    entry = Path(__file__).resolve().parent.parent / "dashboard" / "app.py"
    sys.argv = [str(entry), "--db", db_url, "--no-bus"]
    out: dict[str, list[tuple[float, float]]] = {}
    at = AppTest.from_file(str(entry), default_timeout=120)
    at.run()
    at.switch_page("views/player.py").run()  # warm: imports, first query
    for name in names:
        out[name] = []
        for _ in range(repeats):
            at.query_params["player"] = name
            at.session_state["player_id"] = None
            started, cpu = time.perf_counter(), time.process_time()
            at.run()
            out[name].append((time.perf_counter() - started, time.process_time() - cpu))
            if at.exception:
                raise RuntimeError(str(at.exception[0].value))
    return out


def row(label: str, runs: list[tuple[float, float]]) -> str:
    wall, cpu = [w for w, _ in runs], [c for _, c in runs]
    return (f"| {label} | {len(runs)} | {1000 * statistics.median(wall):.0f} | {1000 * percentile(wall, 0.95):.0f} | "
            f"{1000 * max(wall):.0f} | **{1000 * statistics.median(cpu):.0f}** | {1000 * percentile(cpu, 0.95):.0f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--no-page", action="store_true", help="time the queries only")
    parser.add_argument("--db", type=Path, default=None, help="SQLite file to fill, or to reuse when it exists")
    args = parser.parse_args(argv)
    path = args.db or Path(tempfile.mkdtemp(prefix="bench-player-db-")) / "history.db"
    reuse = path.exists()
    url = f"sqlite:///{path}"
    store = Store.open(url)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    if reuse:
        ids = {name: store.player_named(name).id for name in PEOPLE}  # type: ignore[union-attr]
        args.games = store.list_games(limit=1).total
    else:
        ids = fill(store, args.games, analyses=False, now=datetime.now(timezone.utc), days=365)
    fill_s = time.perf_counter() - started
    size_mb = sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 2**20
    counts = {name: store.player(ids[name]).games for name in PEOPLE}
    queries = {name: [query_once(store, ids[name]) for _ in range(args.repeats)] for name in PEOPLE}
    store.close()
    pages = {} if args.no_page else page_runs(url, list(PEOPLE), args.repeats)
    print("## Player page on 10,000 games (`bench.bench_player_page`)\n")
    print(f"{args.games:,} generated games (40 moves, every move reviewed: {args.games * 40:,} `reviewed_moves` rows) "
          f"of three people against each other and four engine levels, "
          + (f"written in {fill_s:.0f} s" if not reuse else "generated before (--db)") + "; SQLite (WAL) "
          f"{size_mb:.0f} MB. Machine: {os.cpu_count()} cores, {platform.machine()}, Python "
          f"{platform.python_version()}, load average {load:.2f} at start (shared machine). Target: the page "
          "opens in ≤ 1 s.\n")
    print("| what | runs | wall p50 ms | wall p95 ms | wall max ms | CPU p50 ms | CPU p95 ms |\n"
          "|---|---|---|---|---|---|---|")
    for name in PEOPLE:
        print(row(f"queries, {name} ({counts[name]:,} games)", queries[name]))
    print(row("queries, all", sum(queries.values(), [])))
    for name in pages:
        print(row(f"page run, {name}", pages[name]))
    if pages:
        print(row("page run, all", sum(pages.values(), [])))
    print("\nQueries: `Store.players` + `Store.player_history` + the rank estimate. Page run: the whole Player "
          "page script server-side under `streamlit.testing` (the dashboard's entry, navigation, three plotly "
          "figures, tables), without the browser's drawing. CPU: this process's CPU time for the same span (the "
          "figure to compare on a shared machine, where wall time counts other processes' turns).\n")
    print(f"_(bench.bench_player_page, {args.games} games, {args.repeats} repeats per person)_\n")


if __name__ == "__main__":
    main()
