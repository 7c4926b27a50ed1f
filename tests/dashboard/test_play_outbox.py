"""The Play page's outbox: events kept until stored, sent again in seq order when the
recorder's marks stand still while it is online (a fake clock)."""

from __future__ import annotations

from gobuddy.bus.game_events import MovePlayed
from gobuddy.bus.redelivery import Redelivery
from dashboard.play_outbox import PlayOutbox


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def move(game: str, seq: int) -> MovePlayed:
    return MovePlayed(board_id="web-1", game_id=game, seq=seq, move_number=seq, color="BW"[(seq + 1) % 2],
                      vertex="E5", captures=())


def outbox(online: list[bool]) -> tuple[PlayOutbox, Clock, list[tuple[str, int]]]:
    clock, sent = Clock(), []
    box = PlayOutbox(lambda topic, event: sent.append((topic, event.seq)), lambda: online[0],
                     Redelivery(10, 40, clock))
    return box, clock, sent


def test_stored_events_are_forgotten_and_the_rest_sent_again_in_order() -> None:
    box, clock, sent = outbox([True])
    for seq in (1, 2, 3, 4):
        box.sent(move("g", seq))
    box.stored("g", 2)
    assert box.unstored() == 2
    for step in range(1, 111):
        clock.t = step / 10
        box.tick()
    assert sent == [("gobuddy/v1/board/web-1/event", 3), ("gobuddy/v1/board/web-1/event", 4)]  # once, at 10.1 s
    box.stored("g", 4)
    assert box.unstored() == 0 and box.tick() == 0


def test_nothing_is_sent_again_while_no_recorder_is_online() -> None:
    online = [False]
    box, clock, sent = outbox(online)
    box.sent(move("g", 1))
    for step in range(1, 1001):
        clock.t = step / 10
        box.tick()
    assert sent == []
    online[0] = True
    box.tick()
    clock.t += 10
    assert box.tick() == 1 and sent == [("gobuddy/v1/board/web-1/event", 1)]


def test_marks_of_other_games_and_old_marks_change_nothing() -> None:
    box, clock, sent = outbox([True])
    box.sent(move("g", 5))
    box.stored("other", 99)
    box.stored("g", 4)
    assert box.unstored() == 1
