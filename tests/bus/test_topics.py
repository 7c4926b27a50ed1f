"""The topic tree: builders, filters and parsing (no broker needed)."""

from __future__ import annotations

import pytest

from gobuddy.bus import topics
from gobuddy.bus.topics import TopicError

# (builder call, topic, family, qos, retained)
TREE = [
    (lambda: topics.board_frame("board-1"), "gobuddy/v1/board/board-1/frame", "frame", 0, False),
    (lambda: topics.board_button("board-1"), "gobuddy/v1/board/board-1/button", "button", 1, False),
    (lambda: topics.board_event("board-kitchen"), "gobuddy/v1/board/board-kitchen/event", "event", 1, False),
    (lambda: topics.board_state("web-3"), "gobuddy/v1/board/web-3/state", "state", 1, True),
    (lambda: topics.board_led("board-1"), "gobuddy/v1/board/board-1/led", "led", 1, False),
    (lambda: topics.engine_request("board", "board-1"), "gobuddy/v1/engine/request/board/board-1",
     "engine_request", 1, False),
    (lambda: topics.engine_response("dashboard", "dashboard-a1"), "gobuddy/v1/engine/response/dashboard/dashboard-a1",
     "engine_response", 1, False),
    (lambda: topics.status("engine", "engine-pc1-0"), "gobuddy/v1/status/engine/engine-pc1-0", "status", 1, True),
    (lambda: topics.error("recorder", "recorder"), "gobuddy/v1/error/recorder/recorder", "error", 1, False),
]


@pytest.mark.parametrize("build,topic,family,qos,retained", TREE, ids=[t[2] for t in TREE])
def test_builders_and_parse_agree(build, topic: str, family: str, qos: int, retained: bool) -> None:
    assert build() == topic
    info = topics.parse(topic)
    assert (info.family, info.spec.qos, info.spec.retain) == (family, qos, retained)


def test_parse_names_the_ids() -> None:
    assert topics.parse("gobuddy/v1/board/board-2/event").board_id == "board-2"
    info = topics.parse("gobuddy/v1/engine/request/board/board-1")
    assert (info.role, info.client_id, info.board_id) == ("board", "board-1", None)
    info = topics.parse("gobuddy/v1/status/engine/engine-7")
    assert (info.role, info.client_id) == ("engine", "engine-7")
    assert topics.parse("gobuddy/v1/engine/response/board/board-1").kinds == ("engine_answer", "engine_error",
                                                                               "engine_progress")


@pytest.mark.parametrize("topic", [
    "gobuddy/v2/board/board-1/event",            # another version
    "gobuddy/v1/board/board-1/event/extra",      # too many levels
    "gobuddy/v1/board/board-1",                  # too few
    "gobuddy/v1/board/board-1/moves",            # unknown family
    "gobuddy/v1/board/Board-1/event",            # upper case id
    "gobuddy/v1/board/kitchen/event",            # not board-/web-
    "gobuddy/v1/board/+/event",                  # wildcard
    "gobuddy/v1/board/board-/event",
    "gobuddy/v1/engine/request/board-1",         # missing role level
    "gobuddy/v1/engine/request/board/engine-1",  # a board's client id must be its board id
    "gobuddy/v1/status/robot/x",                 # unknown role
    "gobuddy/v1/status/engine/bad id",
    "gobuddy/v1/error/engine",
    "/gobuddy/v1/status/engine/e1",
    "",
])
def test_parse_rejects_what_is_not_in_the_tree(topic: str) -> None:
    with pytest.raises(TopicError):
        topics.parse(topic)


@pytest.mark.parametrize("build", [
    lambda: topics.board_event("board-1/x"),
    lambda: topics.board_event("board-+"),
    lambda: topics.board_event("board-#"),
    lambda: topics.board_event(""),
    lambda: topics.status("board", "engine-1"),
    lambda: topics.status("gm", "x"),
    lambda: topics.engine_response("engine", "a/b"),
    lambda: topics.error("engine", "x" * 65),
    lambda: topics.web_board_id(0),
    lambda: topics.web_board_id(topics.WEB_BOARD_SLOTS + 1),
    lambda: topics.boards_filter("moves"),
    lambda: topics.shared("bad/group", "gobuddy/v1/#"),
])
def test_builders_refuse_ids_that_cannot_be_levels(build) -> None:
    with pytest.raises(TopicError):
        build()


def test_filters() -> None:
    assert topics.boards_filter("event") == "gobuddy/v1/board/+/event"
    assert topics.board_filter("board-1") == "gobuddy/v1/board/board-1/+"
    assert topics.engine_requests_filter() == "$share/engine/gobuddy/v1/engine/request/+/+"
    assert topics.engine_requests_filter(None) == "gobuddy/v1/engine/request/+/+"
    assert topics.status_filter() == "gobuddy/v1/status/+/+"
    assert topics.status_filter("engine") == "gobuddy/v1/status/engine/+"
    assert topics.error_filter() == "gobuddy/v1/error/+/+"
    assert topics.everything_filter() == "gobuddy/v1/#"
    assert topics.web_board_id(1) == "web-1"
    assert topics.web_board_ids() == tuple(f"web-{n}" for n in range(1, topics.WEB_BOARD_SLOTS + 1))
    assert all(topics.is_board_id(b) and not topics.is_physical_board_id(b) for b in topics.web_board_ids())


@pytest.mark.parametrize("topic_filter,topic,expected", [
    ("gobuddy/v1/board/+/event", "gobuddy/v1/board/board-1/event", True),
    ("gobuddy/v1/board/+/event", "gobuddy/v1/board/board-1/state", False),
    ("$share/engine/gobuddy/v1/engine/request/+/+", "gobuddy/v1/engine/request/board/board-1", True),
    ("gobuddy/v1/#", "gobuddy/v1/status/engine/e1", True),
])
def test_matches(topic_filter: str, topic: str, expected: bool) -> None:
    assert topics.matches(topic_filter, topic) is expected


@pytest.mark.parametrize("topic_filter", ["#", "other/#", "gobuddy/v1/a#", "gobuddy/v1/#/x", "gobuddy/v1/b+/c",
                                          "$share//gobuddy/v1/#"])
def test_check_filter_refuses_filters_outside_the_tree(topic_filter: str) -> None:
    with pytest.raises(TopicError):
        topics.check_filter(topic_filter)


def test_physical_and_web_board_ids() -> None:
    assert topics.is_physical_board_id("board-1") and not topics.is_physical_board_id("web-1")
    assert topics.is_board_id("web-1") and not topics.is_board_id("engine")
