"""Generated history for the player tests and the bench: games of a few people against
each other and against engine levels, with random legal moves (``gobuddy.go``),
plausible engine answers and stored reviews.

``fill(store, games=200, ...)`` writes straight into the tables (bulk inserts, not the
wire: 10,000 games take seconds). Each person has a mean point loss per move (Ana
about 1.2, improving over time; Ben 2.5; Cleo 4), engines lose about 0.8. A move's
loss is drawn from an exponential distribution around it; the score lead after each
move follows from the losses; the engine answers of every position are made from
those leads (``answer``), so ``dashboard.mistakes`` finds exactly these losses, and the
reviews stored are ``dashboard.review``'s own (``review_game`` + ``save_review``).
With ``analyses=False`` the answers are not stored (the bench: the page never reads
them). Games are spread over the ``days`` before ``now``, some in the last week.
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import insert

from dashboard import ladder
from dashboard.mistakes import review_game
from dashboard.store import PositionKey, Store
from dashboard.store.models import Analysis, Game, GameReport, LevelChange, Move, Player, ReviewedMove
from dashboard.store.players import player_for
from dashboard.store.reviews import MISTAKE_CLASSES
from gobuddy.go.coords import color_to_str, to_gtp
from gobuddy.go.position import Position

PEOPLE = {"Ana": 1.2, "Ben": 2.5, "Cleo": 4.0}  # mean point loss per move
ENGINES = ["gobuddy 25 kyu", "gobuddy 20 kyu", "gobuddy 15 kyu", "gobuddy 10 kyu"]
LEVELS = ["30 kyu", "25 kyu", "20 kyu", "15 kyu", "10 kyu", "5 kyu", "1 dan", "full"]
KINDS = ["capture", "atari", "self-atari", "ladder", "connection", "cut", "life-and-death", "territory"]
MODEL = "gen-model"
OPENINGS = ["E5", "C3", "G7", "C7", "G3", "D4", "F6", "E3"]


def random_game(rng: random.Random, size: int = 9, moves: int = 40) -> list[tuple[str, str]]:
    """(colour, vertex) of a legal game: the first move from a few openings, then random
    legal moves that fill no eye of their own; ends early when none is left."""
    pos = Position(size)
    out = []
    for i in range(moves):
        legal = [p for p in pos.legal_moves() if not pos.is_eye_like(p, pos.to_play)]
        if not legal:
            break
        if i == 0:
            point = legal[legal.index(_point(rng.choice(OPENINGS), size))] if size == 9 else rng.choice(legal)
        else:
            point = rng.choice(legal)
        out.append((color_to_str(pos.to_play), to_gtp(point, size)))
        pos.play(point)
    return out


def _point(vertex: str, size: int) -> int:
    from gobuddy.go.coords import from_gtp
    return from_gtp(vertex, size)


def answer(to_play: str, lead_black: float, best: str, second: str, n: int, key: PositionKey) -> dict[str, Any]:
    """An engine_answer for a position whose black lead is ``lead_black``: ``best`` keeps
    it, ``second`` loses 2 points."""
    lead = lead_black if to_play == "B" else -lead_black
    wr_black = 1.0 / (1.0 + math.exp(-lead_black / 5.0))
    wr = wr_black if to_play == "B" else 1.0 - wr_black
    def cand(move: str, order: int, drop: float, prior: float) -> dict[str, Any]:
        w = 1.0 / (1.0 + math.exp(-(lead - drop) / 5.0))
        return {"move": move, "order": order, "visits": 60 - 40 * order, "winrate": w,
                "winrate_black": w if to_play == "B" else 1 - w, "score_lead": lead - drop, "prior": prior,
                "pv": [move]}
    return {"id": f"gen-{n}", "board_id": None, "ts": 0, "position_key": {"move_count": n, "hash": key.hash},
            "to_play": to_play, "root": {"visits": 100, "winrate": wr, "winrate_black": wr_black,
                                         "score_lead": lead, "value": 2 * wr - 1},
            "moves": [cand(best, 0, 0.0, 0.5), cand(second, 1, 2.0, 0.2)], "ownership": None,
            "is_during_search": False, "model": MODEL, "elapsed_ms": 1.0, "worker": "gen"}


def fill(store: Store, games: int = 200, *, seed: int = 1, now: datetime | None = None, days: int = 180,
         analyses: bool = True, moves: int = 40) -> dict[str, int]:
    """Write ``games`` generated games (see the module docstring); the players' ids by name."""
    rng = random.Random(seed)
    now = now or datetime.now(timezone.utc)
    with store.session(write=True) as s:
        ids = {name: player_for(s, name).id for name in PEOPLE}
        ids.update({name: player_for(s, name, "engine").id for name in ENGINES})
    people = list(PEOPLE)
    known: dict[tuple[str, str], dict[str, Any]] = {}  # one answer per position, shared by the games reaching it
    levels = {name: None for name in PEOPLE}
    batch: dict[str, list[dict[str, Any]]] = {"games": [], "moves": [], "analyses": [], "reports": [], "reviewed": [],
                                              "levels": []}
    for i in range(games):
        started = now - timedelta(days=days) + timedelta(seconds=(days * 86400 - 3600) * i / max(1, games - 1))
        person = people[i % 3]
        if i % 4 == 3:
            other, mode = people[(i + 1) % 3], "two_players"
        else:
            other, mode = ENGINES[rng.randrange(len(ENGINES))], "vs_engine"
        black, white = (person, other) if i % 2 == 0 else (other, person)
        game_id = f"gen-{seed}-{i:05d}"
        record = random_game(rng, moves=moves)
        progress = i / max(1, games - 1)
        mean = {c: (PEOPLE[name] * (1.3 - 0.6 * progress) if name == "Ana" else PEOPLE.get(name, 0.8))
                for c, name in (("B", black), ("W", white))}
        lead = 0.5  # black's lead before move 1
        pos = Position(9)
        answers: dict[int, dict[str, Any]] = {}
        for n, (color, vertex) in enumerate(record, start=1):
            lead = _answer_at(known, pos, n - 1, lead, answers, rng, vertex, mean[color])
            loss = answers[n - 1]["_loss"]
            lead -= loss if color == "B" else -loss
            pos.play(_point(vertex, 9))
        lead = _answer_at(known, pos, len(record), lead, answers, rng, "pass", 0.0)
        winner = "B" if lead > 0 else "W"
        result = f"{winner}+{abs(lead):.1f}" if rng.random() < 0.8 else f"{winner}+R"
        batch["games"].append(dict(id=game_id, board_id=None, source="web", size=9, komi=7.0, rules="chinese",
                                   handicap=0, to_play="B", mode=mode, black=black, white=white, started_at=started,
                                   ended_at=started + timedelta(minutes=20), result=result, end_reason="score",
                                   black_player_id=ids[black], white_player_id=ids[white], review_state="done"))
        batch["moves"] += [dict(game_id=game_id, move_number=n, color=c, vertex=v, captures=[], played_at=None)
                           for n, (c, v) in enumerate(record, start=1)]
        fresh = {-1 - k: a for k, a in answers.items() if k < 0}
        answers = {k: a for k, a in answers.items() if k >= 0}
        review = review_game([(n, c, v) for n, (c, v) in enumerate(record, start=1)], answers)
        judged = [dict(game_id=game_id, move_number=m.number, color=m.color, vertex=m.vertex, loss=m.loss,
                       category=m.category, best=m.best, top_move=m.top_move,
                       kind=rng.choice(KINDS) if m.category in MISTAKE_CLASSES else None)
                  for m in review.moves if m.loss is not None]
        batch["reviewed"] += judged
        for c, r in review.players.items():
            kinds: dict[str, int] = {}
            for m in judged:
                if m["color"] == c and m["kind"]:
                    kinds[m["kind"]] = kinds.get(m["kind"], 0) + 1
            batch["reports"].append(dict(game_id=game_id, color=c, unit=review.unit, moves=r.moves, accuracy=r.accuracy,
                                         mean_loss=r.mean_loss, weighted_loss=r.weighted_loss,
                                         top_move_rate=r.top_move_rate, top5_rate=r.top5_rate,
                                         histogram=dict(r.histogram), reviewed_at=started, kinds=kinds or None))
        if mode == "vs_engine":
            played = ladder.level_in_name(other, LEVELS)
            before = levels[person]
            levels[person] = ladder.step(LEVELS, played, ladder.outcome(result, "B" if black == person else "W"))
            batch["levels"].append(dict(player_id=ids[person], game_id=game_id, opponent_level=played,
                                        outcome=ladder.outcome(result, "B" if black == person else "W"),
                                        level_before=before, level_after=levels[person], changed_at=started))
        if analyses:
            for n, a in fresh.items():
                batch["analyses"].append(dict(position_hash=a["position_key"]["hash"], size=9, komi=7.0,
                                              rules="chinese", to_play=a["to_play"], model=MODEL, move_count=n,
                                              visits=100, answer=a, created_at=started, game_id=game_id,
                                              move_number=n))
        if len(batch["moves"]) > 20_000 or i == games - 1:
            _flush(store, batch)
    with store.session(write=True) as s:
        for name, level in levels.items():
            s.get(Player, ids[name]).level = level
    return ids


def _answer_at(known: dict[tuple[str, str], dict[str, Any]], pos: Position, n: int, lead: float,
               answers: dict[int, dict[str, Any]], rng: random.Random, vertex: str, mean: float) -> float:
    """The answer for ``pos`` (after ``n`` moves): the one made when a game first reached
    it, else a new one at ``lead`` whose best move is ``vertex`` when the move about to be
    played loses little (also kept at ``answers[-1 - n]``: to be stored). Its ``_loss``
    is what the move about to be played loses. Returns black's lead in the position."""
    key = PositionKey.of(pos, 7.0, "chinese")
    loss = (rng.expovariate(1.0 / mean) if rng.random() < 0.7 else rng.random() * 0.3) if mean else 0.0
    found = known.get((key.hash, key.to_play))
    if found is None:
        legal = [to_gtp(p, 9) for p in pos.legal_moves()[:6]] or ["pass"]
        best = vertex if loss < 0.3 else next((v for v in legal if v != vertex), vertex)
        second = next((v for v in legal if v != best), best)
        found = known[(key.hash, key.to_play)] = answer(key.to_play, lead, best, second, n, key)
        answers[-1 - n] = found  # new here: stored with this game
    answers[n] = {**found, "_loss": loss}
    root = found["root"]["score_lead"]
    return root if key.to_play == "B" else -root


def _flush(store: Store, batch: dict[str, list[dict[str, Any]]]) -> None:
    with store.session(write=True) as s:
        for table, rows in (("games", Game), ("moves", Move), ("analyses", Analysis), ("reports", GameReport),
                            ("reviewed", ReviewedMove), ("levels", LevelChange)):
            if batch[table]:
                s.execute(insert(rows), batch[table])
                batch[table].clear()
