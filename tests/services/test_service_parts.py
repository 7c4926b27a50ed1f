"""The parts of the services that need no broker: command lines, replaying a request's
position (errors name the field), the answer cache, the job queue's supersession."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from dashboard.recorder import parse_args as recorder_args, prepare_sqlite_dir
from engine_worker.answer_cache import AnswerCache
from engine_worker.config import parse_args as worker_args
from engine_worker.job_queue import Job, JobQueue
from engine_worker.request_position import RequestError, build, prepare
from gobuddy.bus.engine_messages import Position as WirePosition
from gobuddy.go.coords import BLACK, WHITE, from_gtp


# ---- command lines -----------------------------------------------------------------------

def test_worker_command_line(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    secret = tmp_path / "engine-x-1.password"
    secret.write_text("s3cret\n")
    config, level = worker_args(["--model", str(model), "--password-file", str(secret), "--username", "engine-x-1",
                                 "--visits", "300", "--threads", "2", "--share-group", "fast", "--broker-port", "1884",
                                 "--nice", "10"])
    assert (config.bus.client_id, config.bus.role, config.bus.password, config.bus.port) == \
        ("engine-x-1", "engine", "s3cret", 1884)
    assert (config.visit_cap, config.threads, config.share_group, level, config.nice) == (300, 2, "fast", "INFO", 10)
    assert not config.bus.persistent_session and config.models == (model,)
    other = tmp_path / "m13.onnx"
    other.write_bytes(b"")
    two, _ = worker_args(["--model", str(model), "--model", str(other), "--password-file", str(secret),
                          "--username", "engine-x-1"])
    assert two.models == (model, other)
    assert config.level_models == () and two.level_models == ()  # --model alone: the levels play it too


def test_worker_level_models(tmp_path: Path, monkeypatch) -> None:
    secret = tmp_path / "engine-x-1.password"
    secret.write_text("s3cret\n")
    account = ["--password-file", str(secret), "--username", "engine-x-1"]
    monkeypatch.chdir(tmp_path)  # the defaults are relative: models/... in the checkout
    for path in ("models/gobuddy-9x9.int8.onnx", "models/gobuddy-13x13.int8.onnx",
                 "models/levels/gobuddy-9x9.int8.onnx"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"")
    shipped, _ = worker_args(account)  # the shipped models: the level models this checkout has
    assert shipped.level_models == (Path("models/levels/gobuddy-9x9.int8.onnx"),)
    none, _ = worker_args([*account, "--level-model", "none"])
    assert none.level_models == ()
    given, _ = worker_args([*account, "--model", "models/gobuddy-9x9.int8.onnx",
                            "--level-model", "models/levels/gobuddy-9x9.int8.onnx"])
    assert given.level_models == (Path("models/levels/gobuddy-9x9.int8.onnx"),)


@pytest.mark.parametrize("argv, words", [
    ([], "models/gobuddy-9x9.int8.onnx does not exist (the shipped model is missing"),
    (["--model", "{model}", "--model", "missing.onnx"], "--model: missing.onnx does not exist"),
    (["--model", "{model}", "--level-model", "missing.onnx"], "--level-model: missing.onnx does not exist"),
    (["--model", "{model}", "--share-group", "a/b"], "shared subscription group"),
    (["--model", "{model}", "--username", "bad id"], "'bad id' is not a client id"),
    (["--model", "{model}", "--password-file", "/nonexistent/engine-1.password"], "--password-file"),
    (["--model", "{model}", "--visits", "0"], "visit_cap"),
    (["--model", "{model}", "--nice", "25"], "--nice"),
    (["--model", "{model}", "--broker-port", "0"], "port: 0 is not a TCP port"),
])
def test_worker_command_line_errors_name_the_argument(tmp_path, capsys, monkeypatch, argv, words) -> None:
    monkeypatch.chdir(tmp_path)
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    with pytest.raises(SystemExit) as exit_info:
        worker_args([arg.format(model=model) for arg in argv])
    assert exit_info.value.code == 2 and words in capsys.readouterr().err


def test_recorder_command_line(tmp_path: Path, capsys) -> None:
    config, _ = recorder_args(["--db", "postgresql+psycopg://rec@db/gobuddy", "--password", "x"])
    assert (config.bus.client_id, config.bus.role, config.bus.persistent_session) == ("recorder", "recorder", True)
    assert config.db_url == "postgresql+psycopg://rec@db/gobuddy" and config.bus.session_expiry_s == 7 * 24 * 3600
    default, _ = recorder_args([])
    assert default.db_url == "sqlite:///data/gobuddy.db"
    with pytest.raises(SystemExit):
        recorder_args(["--db", "gobuddy.db"])
    assert "is not a database URL" in capsys.readouterr().err
    prepare_sqlite_dir(f"sqlite:///{tmp_path / 'a' / 'b' / 'x.db'}")
    assert (tmp_path / "a" / "b").is_dir()


# ---- a request's position ----------------------------------------------------------------

def wire(moves=(), setup=(), to_play=None, size=9, rules="chinese") -> WirePosition:
    return WirePosition(size=size, komi=7.0, rules=rules, moves=tuple(moves), setup=tuple(setup), to_play=to_play)


@pytest.mark.parametrize("moves, setup, field, words", [
    ([("B", "E5"), ("W", "E5")], [], "position.moves[1][1]", "occupied"),
    ([("B", "A2"), ("B", "B1"), ("W", "A1")], [], "position.moves[2][1]", "suicide"),
    ([("B", "J10")], [], "position.moves[0][1]", "off a 9x9 board"),
    ([], [("B", "C3"), ("W", "C3")], "position.setup[1][1]", "C3 is set twice"),
    ([], [("B", "A1"), ("W", "A2"), ("W", "B1")], "position.setup", "no liberties"),
    ([("B", "pass")], [("B", "pass")], "position.setup[0][1]", "'pass' is not a point"),
])
def test_an_unplayable_position_names_the_field(moves, setup, field, words) -> None:
    with pytest.raises(RequestError) as error:
        build(wire(moves, setup), (9,))
    assert error.value.field == field and words in error.value.message


def test_superko_follows_the_rules() -> None:
    # Black E4 takes the white stone at D4; white may not take back at once, under any rules.
    ko = [("B", "D5"), ("W", "E5"), ("B", "C4"), ("W", "F4"), ("B", "D3"), ("W", "E3"), ("B", "pass"),
          ("W", "D4"), ("B", "E4"), ("W", "D4")]
    for rules in ("chinese", "japanese"):
        with pytest.raises(RequestError) as error:
            build(wire(ko, rules=rules), (9,))
        assert error.value.field == "position.moves[9][1]" and "ko" in error.value.message
    assert build(wire(ko[:9], rules="japanese"), (9,))[0].superko is False
    assert build(wire(ko[:9]), (9,))[0].superko is True


def test_side_to_move_and_history() -> None:
    pos, history = build(wire([("B", "E5"), ("W", "C4")]), (9,))
    assert pos.to_play == BLACK and pos.move_count == 2 and len(history) == 2
    assert history[0][from_gtp("C4", 9)] == 0 and history[0][from_gtp("E5", 9)] == BLACK
    assert build(wire([("B", "E5")], to_play="B"), (9,))[0].to_play == BLACK
    assert build(wire(setup=[("B", "C3")], to_play="W"), (9,))[0].to_play == WHITE
    with pytest.raises(RequestError) as error:
        build(wire(size=13), (9,))
    assert error.value.field == "position.size"


def test_search_keys_tell_positions_and_budgets_apart() -> None:
    def key(moves, visits=8, komi_rules=("chinese",), **extra):
        return prepare(wire(moves, rules=komi_rules[0]), (9,), visits, 5, False).key

    assert key([("B", "E5")]) == key([("B", "E5")])
    assert key([("B", "E5")]) != key([("B", "E5")], visits=9)
    assert key([("B", "E5")]) != key([("B", "E5")], komi_rules=("japanese",))
    assert key([("B", "E5"), ("W", "pass")]) != key([("B", "E5")])  # white to play vs black to play
    transposed = [("B", "E5"), ("W", "C3"), ("B", "G7")], [("B", "G7"), ("W", "C3"), ("B", "E5")]
    assert key(transposed[0]) != key(transposed[1])  # same stones, but the net sees other previous boards


# ---- the answer cache --------------------------------------------------------------------

def test_the_cache_keeps_the_most_recently_used() -> None:
    cache = AnswerCache(2)
    cache.put("a", {"v": 1})
    cache.put("b", {"v": 2})
    assert cache.get("a") == {"v": 1}
    cache.put("c", {"v": 3})
    assert (cache.get("b"), cache.get("a"), cache.get("c")) == (None, {"v": 1}, {"v": 3})
    copy = cache.get("a")
    copy["v"] = 99
    assert cache.get("a") == {"v": 1} and (cache.hits, cache.misses) == (5, 1)
    empty = AnswerCache(0)
    empty.put("a", {"v": 1})
    assert empty.get("a") is None and len(empty) == 0


# ---- the job queue -----------------------------------------------------------------------

def job(name: str, key: object = None) -> Job:
    received = SimpleNamespace(message=SimpleNamespace(id=name))  # all the queue looks at
    return Job(received, prepared=None, visits=1, key=key)  # type: ignore[arg-type]


def test_a_newer_job_of_the_same_key_supersedes_older_ones() -> None:
    queue = JobQueue(capacity=3)
    hint_1, other, hint_2 = job("h1", "board-1"), job("x"), job("h2", "board-1")
    assert all(queue.put(j) for j in (hint_1, other, hint_2)) and not queue.put(job("full"))
    taken = [queue.take(0.1) for _ in range(3)]
    assert taken == [hint_1, other, hint_2]
    assert [queue.superseded(j) for j in taken] == [True, False, False]


def test_a_running_job_is_stopped_when_superseded() -> None:
    queue = JobQueue(capacity=3)
    running = job("h1", "board-1")
    queue.put(running)
    assert queue.take(0.1) is running and not running.stop.is_set()
    queue.put(job("other-board", "board-2"))
    assert not running.stop.is_set()
    queue.put(job("h2", "board-1"))
    assert running.stop.is_set() and queue.superseded(running)
    queue.finish(running)
    assert [j.request.id for j in queue.close()] == ["other-board", "h2"]
    assert queue.take(0.1) is None and not queue.put(job("late"))


def test_requesters_take_turns() -> None:
    """A requester that floods the queue waits behind its own requests, not others'."""
    queue = JobQueue(capacity=100)
    flood = [Job(SimpleNamespace(message=SimpleNamespace(id=f"f{n}")), prepared=None, visits=1,  # type: ignore[arg-type]
                 requester="board-1") for n in range(6)]
    fair = [Job(SimpleNamespace(message=SimpleNamespace(id=f"q{n}")), prepared=None, visits=1,  # type: ignore[arg-type]
                requester="board-2") for n in range(2)]
    for item in flood:
        assert queue.put(item)
    assert queue.ahead("board-2") == 1  # a newcomer waits for one turn of the flood only
    assert queue.ahead("board-1") == 6
    for item in fair:
        queue.put(item)
    order = [queue.take(0.1).request.id for _ in range(8)]  # type: ignore[union-attr]
    assert order == ["f0", "q0", "f1", "q1", "f2", "f3", "f4", "f5"]


def test_one_requester_cannot_fill_the_queue() -> None:
    queue = JobQueue(capacity=10, per_requester=3)
    mine = [Job(SimpleNamespace(message=SimpleNamespace(id=f"m{n}")), prepared=None, visits=1,  # type: ignore[arg-type]
                requester="board-1") for n in range(4)]
    assert [queue.put(item) for item in mine] == [True, True, True, False]
    assert queue.refusal(mine[3]) == "requester_full"
    other = Job(SimpleNamespace(message=SimpleNamespace(id="o")), prepared=None, visits=1,  # type: ignore[arg-type]
                requester="board-2")
    assert queue.refusal(other) is None and queue.put(other)
