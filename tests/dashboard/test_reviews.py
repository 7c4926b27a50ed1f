"""Reviews stored per game: every finished game is reviewed once, from stored analyses
or by asking the engine for the rest (over a real broker, the stand-in or real worker),
resumably; partial when the engine cannot answer; per move the class and loss, so that
"the biggest mistakes this week" is a query; the mistake-kind hook; the command line."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from dashboard import review
from dashboard.live_feed import LiveFeed
from dashboard.store import Store
from dashboard.store.models import GameReport, ReviewedMove
from tests.dashboard.conftest import T0, WireGame, send
from tests.dashboard.player_data import answer
from tests.e2e.fixtures import app_broker, stand_in_worker  # noqa: F401

MOVES = "E5 C3 D4 G7 F6 C7"
LOSSES = [0.2, 0.0, 7.0, 0.4, 13.0, 3.5]  # move n loses LOSSES[n-1] points for its player


def finished(store: Store, game_id: str = "g-1", t0: int = T0, players=("Ana", "Ben")) -> WireGame:
    g = WireGame(game_id, players=players, t0=t0).play(MOVES)
    send(store, *g.events, g.end("W+R", "resign"))
    return g


def store_answers(store: Store, game_id: str, upto: int | None = None, model: str = "m") -> None:
    """Answers for the game's positions 0..upto whose leads make the moves lose LOSSES."""
    keys = store.position_keys(game_id)
    detail = store.get_game(game_id)
    lead = 0.5
    for n in sorted(keys):
        if upto is not None and n > upto:
            break
        best = detail.moves[n].vertex if n < len(detail.moves) and LOSSES[n] < 0.5 else "J9"
        store.save_analysis(keys[n], model, answer(keys[n].to_play, lead, best, "J1", n, keys[n]), move_count=n)
        if n < len(detail.moves):
            lead -= LOSSES[n] if detail.moves[n].color == "B" else -LOSSES[n]


def test_a_game_with_every_position_analysed_is_reviewed_from_the_store(store):
    finished(store)
    store_answers(store, "g-1")
    run = review.review_pending(store)
    assert [(r.game_id, r.complete, r.judged, r.asked) for r in run.games] == [("g-1", True, 6, 0)]
    with store.session() as s:
        moves = {m.move_number: (m.color, m.category, round(m.loss, 1)) for m in s.query(ReviewedMove)}
        reports = {r.color: r for r in s.query(GameReport)}
    assert moves == {1: ("B", "good", 0.2), 2: ("W", "good", 0.0), 3: ("B", "mistake", 7.0), 4: ("W", "good", 0.4),
                     5: ("B", "blunder", 13.0), 6: ("W", "inaccuracy", 3.5)}
    assert reports["B"].histogram["blunder"] == 1 and reports["B"].moves == 3
    assert reports["B"].mean_loss == pytest.approx((0.2 + 7.0 + 13.0) / 3)
    assert store.games_to_review() == []  # resumable: done games are not taken again
    assert review.review_pending(store).games == []


def test_missing_positions_are_asked_and_a_failed_engine_leaves_the_game_partial(store):
    finished(store)
    store_answers(store, "g-1", upto=3)
    asked = []

    def analyse(detail, keys, numbers):
        asked.extend(numbers)
        store_answers(store, detail.game.id)
        return len(numbers)

    finished(store, "g-2", t0=T0 + 60_000)
    run = review.review_pending(store, lambda d, k, n: 0, limit=1)  # the engine answers nothing
    assert [(r.game_id, r.complete, r.judged) for r in run.games] == [("g-1", False, 3)]
    assert store.games_to_review() == ["g-2"]
    assert store.games_to_review(partial=True) == ["g-1", "g-2"]
    run = review.review_pending(store, analyse, partial=True)
    assert asked == [4, 5, 6] and run.done == 2  # g-2 reaches the same positions: their analyses are shared
    assert store.review_counts() == {"done": 2}


def test_the_biggest_mistakes_of_the_week_are_a_query(store, monkeypatch):
    monkeypatch.setattr(review, "mistake_kind", lambda pos, color, vertex, before, after: f"kind-{vertex}")
    now = datetime.fromtimestamp(T0 / 1000, timezone.utc)
    finished(store, "old", t0=T0 - 10 * 86_400_000)
    finished(store, "new", t0=T0)
    for g in ("old", "new"):
        store_answers(store, g)
    review.review_pending(store)
    ana = store.player_named("Ana")
    top = store.player_history(ana.id, now=now + timedelta(hours=1)).top_mistakes
    assert [(m.game_id, m.move_number, m.category, m.kind) for m in top] == [
        ("new", 5, "blunder", "kind-F6"), ("new", 3, "mistake", "kind-D4")]  # Ana is black; good moves are no mistakes
    kinds = store.player_history(ana.id, now=now).kinds
    assert sorted(kinds) == [("new", "kind-D4", 1), ("new", "kind-F6", 1), ("old", "kind-D4", 1), ("old", "kind-F6", 1)]


def test_the_mistake_kind_hook_uses_gobuddy_explain_or_says_nothing(monkeypatch):
    from gobuddy.go.position import Position

    pos = Position.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X O . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""")
    kind = review.mistake_kind(pos, "B", "A1", None, None)
    try:
        import gobuddy.explain  # noqa: F401
    except ImportError:
        assert kind is None
    else:
        assert kind is None or isinstance(kind, str)
    monkeypatch.setitem(__import__("sys").modules, "gobuddy.explain", None)  # not installed
    assert review.mistake_kind(pos, "B", "A1", None, None) is None


def test_games_are_reviewed_through_the_engine_on_the_bus(tmp_path, app_broker, stand_in_worker):
    store = Store.open(f"sqlite:///{tmp_path / 'bus.db'}")
    feed = LiveFeed(app_broker.config("dashboard"))
    try:
        assert feed.client.wait_connected(10)
        finished(store)
        lines = []
        run = review.review_pending(store, review.engine_analyser(feed, store, visits=8, timeout_s=20),
                                    progress=lambda i, n, r: lines.append(review.line(i, n, r)))
        assert run.done == 1 and run.games[0].asked == 7 and run.games[0].analysed == 7
        assert lines[0].startswith("[1/1] g-1: 7 positions, 7 asked (7 answered), 6 moves judged, done")
        assert len(store.analyses_for_game("g-1")) == 7
        with store.session() as s:
            assert s.query(GameReport).count() == 2 and s.query(ReviewedMove).count() == 6
    finally:
        feed.close()
        store.close()


def test_the_command_reviews_what_is_stored(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'cmd.db'}"
    store = Store.open(url)
    finished(store)
    store_answers(store, "g-1")
    store.close()
    assert review.main(["--db", url, "--no-engine"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "waiting: 1 pending, 0 partial, 0 reviewed"
    assert out[1].startswith("[1/1] g-1: 7 positions, 0 asked (0 answered), 6 moves judged, done · accuracy B ")
    assert out[-1].startswith("reviewed 1 game(s)")
    assert review.main(["--db", url, "--no-engine"]) == 0
    assert "reviewed 0 game(s)" in capsys.readouterr().out


def test_watching_reviews_a_game_that_finishes_later(tmp_path):
    """``--watch``: the service keeps looking, and a game finished while it runs is reviewed."""
    import subprocess
    import sys
    import time

    url = f"sqlite:///{tmp_path / 'watch.db'}"
    Store.open(url).close()
    proc = subprocess.Popen([sys.executable, "-m", "dashboard.review", "--db", url, "--no-engine", "--watch", "0.3"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(1.0)
        assert proc.poll() is None, proc.stdout.read()
        store = Store.open(url)
        g = WireGame("g-1", players=("Ana", "Ben"), t0=T0).play(MOVES)
        send(store, *g.events)
        store_answers(store, "g-1")
        send(store, g.end("W+R", "resign"))  # finished only now, every position analysed
        deadline = time.monotonic() + 30
        while store.games_to_review() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert store.games_to_review() == []
        store.close()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert "[1/1] g-1: 7 positions, 0 asked (0 answered), 6 moves judged, done" in out, out


def test_a_game_ended_on_the_bus_is_reviewed_at_once(tmp_path, app_broker, stand_in_worker):
    """The service looks when the bus shows a game ended, not only every ``--watch``
    seconds (here 600: only the news can explain a review within 60 s)."""
    import subprocess
    import sys
    import time

    from gobuddy.bus import BusClient, topics

    url = f"sqlite:///{tmp_path / 'news.db'}"
    Store.open(url).close()
    proc = subprocess.Popen([sys.executable, "-m", "dashboard.review", "--db", url, "--watch", "600", "--visits", "4",
                             "--broker-port", str(app_broker.port), "--username", "dashboard",
                             "--password-file", str(app_broker.password_file("dashboard"))],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    board = BusClient(app_broker.config("board-1"))
    board.start()
    store = Store.open(url)
    try:
        time.sleep(3.0)  # the service is up and has looked once (nothing pending)
        assert proc.poll() is None, proc.stdout.read()
        g = WireGame("g-1", players=("Ana", "Ben"), t0=T0).play(MOVES)
        ended = g.end("W+R", "resignation")
        for event in [*g.events, ended]:  # the board publishes; the recorder (here: send) stores
            board.publish(topics.board_event("board-1"), event, wait=True)
        send(store, *g.events, ended)
        deadline = time.monotonic() + 60
        while store.games_to_review() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert store.games_to_review() == []
    finally:
        store.close()
        board.stop()
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert "[1/1] g-1: 7 positions, 7 asked (7 answered), 6 moves judged, done" in out, out


def test_watch_needs_a_positive_interval(capsys):
    with pytest.raises(SystemExit):
        review.main(["--no-engine", "--watch", "0"])
    assert "--watch must be a positive number of seconds" in capsys.readouterr().err
