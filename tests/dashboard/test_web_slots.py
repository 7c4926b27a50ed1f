"""The live feed's ``web-<n>`` boards, one per browser session that plays on the Play
page: claimed, kept, and handed over to the session a game is resumed in."""

from __future__ import annotations

import pytest

from dashboard.live_feed import LiveFeed

# (step, session, board): "claim" returns the board; "hand" gives the board to the session
STEPS = [
    ("claim", "tab-1", "web-1"),
    ("claim", "tab-1", "web-1"),  # its own again
    ("claim", "tab-2", "web-2"),
    ("hand", "reloaded", "web-1"),  # tab-1's game resumed after a reload
    ("claim", "reloaded", "web-1"),  # the game's board is the new session's
    ("claim", "tab-1", "web-3"),  # the old session lost it: a new game gets a free board
    ("hand", "tab-2", "web-3"),  # a session takes over another board: its own is freed
    ("claim", "tab-2", "web-3"),
    ("claim", "tab-4", "web-2"),
]


def test_boards_are_claimed_kept_and_handed_over():
    feed = LiveFeed(None)
    for step, session, board in STEPS:
        if step == "claim":
            assert feed.claim_web_slot(session) == board, (step, session)
        else:
            feed.hand_over_web_slot(board, session)


@pytest.mark.parametrize("board", ["board-1", "web-0", "web-9", ""])
def test_only_web_boards_are_handed_over(board):
    feed = LiveFeed(None)
    feed.hand_over_web_slot(board, "tab-1")
    assert feed.claim_web_slot("tab-1") == "web-1"
