"""Player: one learner's history across all their games, read from stored reviews.

Choose a player (``?player=<name>`` in the URL; the signed-in user's player by
default). Shown: their current adaptive level (``dashboard.ladder``; the 9x9 ladder,
``ladder.MAIN_SIZE``) and its last steps over time (plotted; another board size's
ladder, when they played one, plotted below it), an estimated
rank with its interval for each board size with enough games against its calibrated
levels (``dashboard.rank_estimate``: each size from its own calibration report, 9x9
first; from move quality until those exist); accuracy and mean point loss per game
over time; the classes and kinds of their mistakes, by month or by 10-game windows;
their first moves; results by opponent level and colour; "your three most instructive
mistakes this week" (each opens Replay at that move); the latest 200 games (open in Replay); an
SGF archive of all of them; and, for players, claiming games played as "guest".
A game counts once however many sides the player held: one a guest played against a
guest is listed once, colour "both", and is neither won nor lost (``store.reviews.player_games``).
Charts of games close together in time span at least a day (``time_range``).

Nothing here asks the engine or recomputes a review: everything comes from
``Store.player_history`` (a few indexed queries; ``bench/bench_player_page.py``). Games
finished but not yet reviewed are counted, and a player may review them here (the
engine over the bus when it is there, ``dashboard.review``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Sequence

import plotly.graph_objects as go
import streamlit as st

from dashboard import ladder, rank_estimate
from dashboard.mistakes import CLASS_COLOURS, CLASSES
from dashboard.store import PlayerError, Store
from dashboard.store.players import PlayerView
from dashboard.store.reviews import MISTAKE_CLASSES, Mistake, PlayerGame, PlayerHistory, class_counts
from dashboard.views.login import can, require, user_name
from dashboard.views.page_context import current

PERIODS = ("month", "10 games")
COLOUR_NAMES = {"B": "black", "W": "white", "both": "both"}
LISTED = 200  # the games list shows the latest ones (every game is in the plots and the SGF archive)


def choose_player(store: Store) -> PlayerView | None:
    """The player chosen in the select box, the URL or by who is signed in."""
    players = sorted(store.players(), key=lambda p: (p.kind != "human", -p.games, p.name.casefold()))
    if not players:
        return None
    by_id = {p.id: p for p in players}
    wanted = st.query_params.get("player")
    if st.session_state.get("player_id") not in by_id:
        found = next((p for p in players if p.name.casefold() == (wanted or "").casefold()), None)
        if found is None and user_name() != "dashboard":
            found = store.player_of_user(user_name())
        st.session_state["player_id"] = (found or players[0]).id if (found or players[0]).id in by_id else players[0].id
    chosen = st.selectbox("Player", list(by_id), key="player_id",
                          format_func=lambda i: f"{by_id[i].name} ({plural(by_id[i].games, 'game')}"
                                                + (", engine)" if by_id[i].kind == "engine" else ")"))
    if st.query_params.get("player") != by_id[chosen].name:
        st.query_params["player"] = by_id[chosen].name
    return by_id[chosen]


def open_replay(game_id: str, move: int | None = None) -> None:
    """Open Replay on a game (at the position before ``move``: the mistake still to play)."""
    st.session_state["replay_game"] = game_id
    if move is not None:
        st.session_state["replay_loaded"] = game_id
        st.session_state["replay_move"] = max(0, move - 1)
    st.switch_page("views/replay.py", query_params={"game": game_id, **({"move": str(move)} if move else {})})


def plural(n: int, word: str) -> str:
    """``1 game``, ``2 games``: ``word`` with an s unless ``n`` is 1."""
    return f"{n} {word if n == 1 else word + 's'}"


def periods(games: Sequence[PlayerGame], by: str) -> list[tuple[str, list[PlayerGame]]]:
    """Reviewed games grouped by month ("2026-03") or in windows of 10, oldest first."""
    reviewed = [g for g in games if g.moves_judged]
    if by == "month":
        groups: dict[str, list[PlayerGame]] = defaultdict(list)
        for g in reviewed:
            groups[f"{g.started_at:%Y-%m}"].append(g)
        return sorted(groups.items())
    return [(f"{i + 1}-{min(i + 10, len(reviewed))}", reviewed[i:i + 10]) for i in range(0, len(reviewed), 10)]


def time_range(times: Sequence[datetime], least: timedelta = timedelta(days=1)) -> list[str] | None:
    """The x range of a chart over ``times``: ``least`` centred on them when they span less
    (one game, or a few in an hour, would otherwise get a millisecond axis); None (plotly's
    own range) when they span more, or there are none."""
    if not times or max(times) - min(times) >= least:
        return None
    middle = min(times) + (max(times) - min(times)) / 2
    return [(middle + d).strftime("%Y-%m-%d %H:%M:%S") for d in (-least / 2, least / 2)]


def quality_figure(games: Sequence[PlayerGame]) -> go.Figure:
    done = [g for g in games if g.accuracy is not None]
    when = [g.started_at.strftime("%Y-%m-%d %H:%M:%S") for g in done]  # text: plotly's datetime encoding is slow
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=when, y=[g.accuracy for g in done], mode="markers+lines",
                             name="accuracy", line=dict(color="#1e9600", width=1)))
    fig.add_trace(go.Scatter(x=when, y=[g.mean_loss for g in done], mode="markers+lines",
                             name="mean point loss", yaxis="y2", line=dict(color="#cc0000", width=1, dash="dot")))
    fig.update_layout(height=320, margin=dict(l=10, r=10, t=30, b=10), legend=dict(orientation="h"),
                      xaxis=dict(type="date", range=time_range([g.started_at for g in done])),
                      yaxis=dict(title="accuracy", range=[0, 100]),
                      yaxis2=dict(title="mean loss a move", overlaying="y", side="right", rangemode="tozero"))
    return fig


def ladder_figure(changes: Sequence[tuple[datetime, str, str, str | None, str]],
                  levels: Sequence[str]) -> go.Figure:
    """The adaptive level after each ladder step (weakest level at the bottom), each step
    marked by the game's outcome; levels no longer offered are placed below the rest."""
    rank = {name: i for i, name in enumerate(levels)}
    when = [c[0].strftime("%Y-%m-%d %H:%M:%S") for c in changes]  # text: plotly's datetime encoding is slow
    y = [rank.get(c[4], -1) for c in changes]
    colours = {"win": "#1e9600", "loss": "#cc0000", "draw": "#888888"}
    fig = go.Figure(go.Scatter(
        x=when, y=y, mode="markers+lines", line=dict(color="#555555", width=1, shape="hv"),
        marker=dict(size=9, color=[colours.get(c[2], "#888888") for c in changes]),
        text=[f"{c[2]} · {c[3] or 'no level'} → {c[4]}" for c in changes], hoverinfo="x+text", showlegend=False))
    fig.update_layout(height=260, margin=dict(l=10, r=10, t=10, b=10),
                      xaxis=dict(type="date", range=time_range([c[0] for c in changes])),
                      yaxis=dict(title="level", tickmode="array", tickvals=list(range(len(levels))),
                                 ticktext=list(levels), range=[-1.5, len(levels) - 0.5]))
    return fig


def ladder_caption(steps: int) -> str:
    """What the ladder plot shows, for ``steps`` (at least one) steps."""
    return (("The one step" if steps == 1 else f"The last {steps} steps") + " of the ladder: a green point is a win "
            "(one level up), a red one a loss (one level down).")


def stacked(bars: list[go.Bar]) -> go.Figure:
    """Bars stacked per period, in mistakes per game."""
    fig = go.Figure(bars)
    fig.update_layout(barmode="stack", height=340, margin=dict(l=10, r=10, t=30, b=10),
                      yaxis=dict(title="per game"), legend=dict(orientation="h", y=-0.25))
    return fig


def classes_figure(groups: list[tuple[str, list[PlayerGame]]]) -> go.Figure:
    return stacked([go.Bar(x=[label for label, _ in groups], marker_color=CLASS_COLOURS[name], name=name,
                           y=[class_counts(gs)[name] / len(gs) for _, gs in groups]) for name in MISTAKE_CLASSES])


def kinds_figure(groups: list[tuple[str, list[PlayerGame]]], kinds: list[tuple[str, str, int]]) -> go.Figure:
    by_game: dict[str, Counter] = defaultdict(Counter)
    for game_id, kind, n in kinds:
        by_game[game_id][kind] += n
    names = [k for k, _ in sum((by_game[g] for g in by_game), Counter()).most_common(8)]
    return stacked([go.Bar(x=[label for label, _ in groups], name=kind,
                           y=[sum(by_game[g.id][kind] for g in gs) / len(gs) for _, gs in groups]) for kind in names])


def results_rows(games: Sequence[PlayerGame]) -> list[dict[str, Any]]:
    """Wins-losses by opponent level (people: "people"), as black and as white; a game
    without an outcome (unfinished, or held on both sides: ``store.reviews.player_games``) is not counted."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"B": [0, 0, 0], "W": [0, 0, 0]})
    for g in games:
        if g.outcome is None:
            continue
        row = g.opponent_level or ("engine (no level)" if g.opponent_kind == "engine" else "people")
        table[row][g.color][("win", "loss", "draw").index(g.outcome)] += 1
    names = ladder.default_levels() or []
    order = sorted(table, key=lambda r: (names.index(r) if r in names else len(names), r))

    def cell(wld: list[int]) -> str:
        return f"{wld[0]}–{wld[1]}" + (f" ({wld[2]} drawn)" if wld[2] else "")

    rows = []
    for r in order:
        b, w = table[r]["B"], table[r]["W"]
        played = sum(b[:2]) + sum(w[:2])
        rows.append({"opponent": r, "as black (won–lost)": cell(b), "as white (won–lost)": cell(w),
                     "win rate": f"{100 * (b[0] + w[0]) / played:.0f}%" if played else "–"})
    return rows


def games_rows(games: Sequence[PlayerGame]) -> list[dict[str, Any]]:
    return [{"started": f"{g.started_at:%Y-%m-%d %H:%M}", "colour": COLOUR_NAMES.get(g.color, g.color),
             "opponent": g.opponent or "?", "result": g.result or "", "outcome": g.outcome or "",
             "accuracy": round(g.accuracy, 1) if g.accuracy is not None else None,
             "mean loss": round(g.mean_loss, 2) if g.mean_loss is not None else None,
             "review": g.review_state or "not finished", "id": g.id} for g in reversed(games)]


def mistakes_this_week(items: Sequence[Mistake]) -> None:
    st.subheader("Your three most instructive mistakes this week")
    if not items:
        st.caption("No reviewed mistake (inaccuracy or worse) in the games of the last seven days.")
        return
    for i, m in enumerate(items):
        unit = "points" if m.unit == "points" else "% win rate"
        why = f" · {m.kind}" if m.kind else ""
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.markdown(f"**{m.started_at:%a %d %b}** · move {m.move_number}, {'black' if m.color == 'B' else 'white'} "
                    f"{m.vertex}: lost {m.loss:.1f} {unit} ({m.category}{why})"
                    + (f", the engine preferred {m.best}" if m.best and m.best != m.vertex else ""))
        if c2.button("Open in Replay", key=f"player_mistake_{i}", icon=":material/replay:"):
            open_replay(m.game_id, m.move_number)


def claim_guest_games(store: Store, player: PlayerView) -> None:
    """A player claims games played as "guest": chosen ones, or a board's in a time range."""
    if not st.toggle(f"Claim games played as guest for {player.name}", key="player_claim_open"):
        return  # read the guest's games only when asked: they may be many
    with st.container(border=True):
        guest = store.player_named("guest")
        if guest is None or guest.id == player.id:
            st.caption("There are no guest games to claim." if guest is None else "This is the guest player.")
            return
        how = st.radio("Which", ["chosen games", "a board's games in a time range"], key="player_claim_how",
                       horizontal=True)
        if how == "chosen games":
            history = store.player_history(guest.id)
            options = {g.id: f"{g.started_at:%Y-%m-%d %H:%M} · {g.board_id or ''} · vs {g.opponent or '?'}"
                       for g in reversed(history.games[-200:])}
            ids = st.multiselect("Guest games", list(options), format_func=options.get, key="player_claim_games")
        else:
            boards = [b.id for b in store.boards()]
            c = st.columns(3)
            board = c[0].selectbox("Board", boards, key="player_claim_board")
            since = c[1].date_input("From", value=date.today() - timedelta(days=7), key="player_claim_since")
            until = c[2].date_input("Until", value=date.today(), key="player_claim_until")
            start = datetime.combine(since, time.min, tzinfo=timezone.utc)
            end = datetime.combine(until, time.min, tzinfo=timezone.utc) + timedelta(days=1)
            ids = store.board_games_of(board, start, end) if board else []
            st.caption(f"{plural(len(ids), 'guest game')} on {board} in that range.")
        if st.button(f"Claim {plural(len(ids), 'game')} for {player.name}", key="player_claim", disabled=not ids) \
                and require("play"):
            try:
                n = store.claim_games(player.id, ids, by=user_name())
            except PlayerError as exc:
                st.error(str(exc))
            else:
                st.success(f"{plural(n, 'game')} {'is' if n == 1 else 'are'} now {player.name}'s.")


def review_waiting(store: Store, waiting: int) -> None:
    services = current()
    if not can("analyse"):
        st.caption(f"{plural(waiting, 'finished game')} {'waits' if waiting == 1 else 'wait'} for "
                   "review (`python -m dashboard.review`).")
        return
    label = f"Review {plural(waiting, 'waiting game')}" + ("" if services.feed.has_bus else " (stored analyses only)")
    if st.button(label, key="player_review", icon=":material/fact_check:") and require("analyse"):
        from dashboard.review import engine_analyser, review_pending

        bar = st.progress(0.0, text="Reviewing…")
        analyse = engine_analyser(services.feed, store) if services.feed.has_bus else None
        run = review_pending(store, analyse, progress=lambda i, n, r: bar.progress(i / n, text=f"{i} of {n}"))
        st.success(f"Reviewed {plural(len(run.games), 'game')} in {run.seconds:.0f} s ({run.done} complete).")


def render() -> None:
    store = current().store
    st.title("Player")
    player = choose_player(store)
    if player is None:
        st.info("No player yet. Players appear with the games they play.")
        return
    history: PlayerHistory = store.player_history(player.id)
    games = history.games
    reviewed = [g for g in games if g.moves_judged]
    losses = [g.mean_loss for g in reviewed if g.unit == "points" and g.mean_loss is not None]
    # results against the levels, by board size: each size's levels have their own calibration
    results: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for g in games:
        if g.opponent_level and g.outcome:
            results[g.size].append((g.opponent_level, g.outcome))
    estimates = rank_estimate.estimates(losses, results)
    c = st.columns(4)
    c[0].metric("Games", len(games), help=f"{len(reviewed)} reviewed")
    c[1].metric("Accuracy (last 20)", f"{sum(g.accuracy for g in reviewed[-20:]) / len(reviewed[-20:]):.1f}"
                if reviewed else "–")
    c[2].metric("Opponent level", player.level or "not yet",
                help="The adaptive ladder on 9x9 (each board size has its own): a win steps up, a loss steps "
                     "down (dashboard/ladder.py).")
    if estimates:
        size, first = estimates[0]
        c[3].metric("Estimated rank" if size is None else f"Estimated rank ({size}x{size})", first.rank,
                    help=f"{first.low} to {first.high}: {first.basis}")
        for size, est in estimates:
            where = "" if size is None else f" on {size}x{size}"
            st.caption(f"Estimated rank{where} {est.rank} (95% interval {est.low} to {est.high}): {est.basis}.")
    else:
        c[3].metric("Estimated rank", "–", help="Needs reviewed games, or games against the calibrated levels.")
    waiting = sum(1 for g in games if g.review_state in ("pending", "partial"))
    if waiting:
        review_waiting(store, waiting)
    mistakes_this_week(history.top_mistakes)
    levels = ladder.default_levels() or []
    if history.level_changes and levels:
        st.subheader("Opponent level over time")
        st.plotly_chart(ladder_figure(history.level_changes, levels), key="player_ladder",
                        config={"displayModeBar": False})
        st.caption(ladder_caption(len(history.level_changes)))
    for size, changes in history.other_ladders.items() if levels else ():
        st.subheader(f"Opponent level over time on {size}x{size}")
        st.plotly_chart(ladder_figure(changes, levels), key=f"player_ladder_{size}", config={"displayModeBar": False})
        st.caption(ladder_caption(len(changes)))
    if reviewed:
        st.subheader("Accuracy and point loss per game")
        st.plotly_chart(quality_figure(games), key="player_quality", config={"displayModeBar": False})
        by = st.radio("Mistakes by", PERIODS, horizontal=True, key="player_period")
        groups = periods(games, by)
        left, right = st.columns(2)
        with left:
            st.subheader("Mistake classes")
            st.plotly_chart(classes_figure(groups), key="player_classes", config={"displayModeBar": False})
            total = class_counts(reviewed)
            st.caption(" · ".join(f"{name}: {total[name]}" for name in CLASSES))
        with right:
            st.subheader("Mistake kinds")
            if history.kinds:
                st.plotly_chart(kinds_figure(groups, history.kinds), key="player_kinds",
                                config={"displayModeBar": False})
            else:
                st.caption("No mistake has a kind yet (the reasons come from gobuddy.explain when games are reviewed).")
    else:
        st.info("No reviewed game yet: the plots appear once games are reviewed.")
    left, right = st.columns(2)
    with left:
        st.subheader("First moves")
        st.dataframe([{"move": v, "games": n} for v, n in list(history.first_moves.items())[:10]],
                     hide_index=True, width="stretch", key="player_openings")
    with right:
        st.subheader("Results by opponent and colour")
        st.dataframe(results_rows(games), hide_index=True, width="stretch", key="player_results")
    st.subheader("Games")
    latest = games[-LISTED:]
    if len(games) > len(latest):
        st.caption(f"The latest {len(latest)} of {len(games)} games (all of them are in the plots and the SGF "
                   "archive).")
    st.dataframe(games_rows(latest), hide_index=True, width="stretch", key="player_games",
                 column_order=("started", "colour", "opponent", "result", "accuracy", "mean loss", "review"))
    if games:
        by_id = {g.id: g for g in reversed(latest)}
        chosen = st.selectbox("Game", list(by_id), key="player_game",
                              format_func=lambda i: f"{by_id[i].started_at:%Y-%m-%d %H:%M} · vs "
                                                    f"{by_id[i].opponent or '?'} · {by_id[i].result or 'unfinished'}")
        c1, c2 = st.columns(2)
        if c1.button("Open in Replay", key="player_replay", icon=":material/replay:"):
            open_replay(chosen)
        if can("download"):
            c2.download_button("Download all games (SGF)", lambda: store.export_player_sgf(player.id),
                               file_name=f"{player.name}.sgf", mime="application/x-go-sgf",
                               key="player_download", icon=":material/download:")
    if player.kind == "human" and can("play"):
        claim_guest_games(store, player)


if __name__ == "__main__":
    render()
