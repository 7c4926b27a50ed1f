"""The MQTT topic tree of Go Learning Buddy, version 1: every topic is built here.

| topic                                          | kind(s)                     | QoS | retained |
|------------------------------------------------|-----------------------------|-----|----------|
| ``gobuddy/v1/board/<board_id>/frame``          | board_frame                 | 0   | no       |
| ``gobuddy/v1/board/<board_id>/button``         | button_event                | 1   | no       |
| ``gobuddy/v1/board/<board_id>/event``          | game_event                  | 1   | no       |
| ``gobuddy/v1/board/<board_id>/state``          | board_state                 | 1   | yes      |
| ``gobuddy/v1/board/<board_id>/led``            | engine_answer               | 1   | no       |
| ``gobuddy/v1/board/<board_id>/stored``         | game_stored                 | 1   | no       |
| ``gobuddy/v1/board/<board_id>/command``        | board_command               | 1   | no       |
| ``gobuddy/v1/engine/request/<role>/<client>``  | engine_request              | 1   | no       |
| ``gobuddy/v1/engine/response/<role>/<client>`` | engine_answer, engine_error, engine_progress | 1 | no |
| ``gobuddy/v1/status/<role>/<client>``          | status                      | 1   | yes      |
| ``gobuddy/v1/error/<role>/<client>``           | error                       | 1   | no       |

``schemas/README.md`` has the full table (publishers, subscribers, ACL). A physical
board's id is ``board-<name>`` and equals its MQTT username and client id (the broker's
ACL patterns rely on that); the dashboard's own games use ``web-<slot>`` boards. Topics
that belong to one client end in ``<role>/<client_id>`` (for engine topics, the
requester's), so the broker can tie them to the account that may use them; under role
``board`` the client id must be a physical board id.

Services never write a topic string themselves: they call the builders below for topics
and the ``*_filter`` functions for subscriptions, and ``parse`` turns a received topic
back into a ``TopicInfo``. Builders raise ``TopicError`` for an id that could not be a
level of the tree, so no ``+``, ``#`` or ``/`` ever sneaks into a topic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from paho.mqtt.client import topic_matches_sub

ROOT = "gobuddy/v1"
ENGINE_GROUP = "engine"
WEB_BOARD_SLOTS = 8  # web-1 .. web-8; broker/make_users.py grants the dashboard exactly these

# The same patterns as schemas/common.schema.json (a test keeps them equal).
BOARD_ID_PATTERN = r"^(board|web)-[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$"
CLIENT_ID_PATTERN = r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,62}[A-Za-z0-9])?$"
ROLES = ("board", "engine", "recorder", "dashboard", "observer")

_BOARD_ID = re.compile(BOARD_ID_PATTERN)
_CLIENT_ID = re.compile(CLIENT_ID_PATTERN)


class TopicError(ValueError):
    """A topic (or an id meant to become a level of one) that is not part of the tree."""


@dataclass(frozen=True)
class TopicSpec:
    """What travels on one family of topics: accepted message kinds, QoS and retain flag."""

    family: str
    kinds: tuple[str, ...]
    qos: int
    retain: bool


SPECS: dict[str, TopicSpec] = {
    spec.family: spec
    for spec in (
        TopicSpec("frame", ("board_frame",), 0, False),
        TopicSpec("button", ("button_event",), 1, False),
        TopicSpec("event", ("game_event",), 1, False),
        TopicSpec("state", ("board_state",), 1, True),
        TopicSpec("led", ("engine_answer",), 1, False),
        TopicSpec("stored", ("game_stored",), 1, False),
        TopicSpec("command", ("board_command",), 1, False),
        TopicSpec("engine_request", ("engine_request",), 1, False),
        TopicSpec("engine_response", ("engine_answer", "engine_error", "engine_progress"), 1, False),
        TopicSpec("status", ("status",), 1, True),
        TopicSpec("error", ("error",), 1, False),
    )
}
BOARD_FAMILIES = ("frame", "button", "event", "state", "led", "stored", "command")


@dataclass(frozen=True)
class TopicInfo:
    """A parsed topic: its family's spec plus the ids its levels name.

    ``board_id`` is set for board topics; ``role`` and ``client_id`` for engine
    request/response (the requester) and status/error (the owner)."""

    topic: str
    spec: TopicSpec
    board_id: str | None = None
    client_id: str | None = None
    role: str | None = None

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.spec.kinds


# ---- ids -------------------------------------------------------------------------------

def is_board_id(text: object) -> bool:
    """True for ``board-<name>`` and ``web-<slot>`` ids (lower case, digits, inner '-')."""
    return isinstance(text, str) and _BOARD_ID.match(text) is not None


def is_physical_board_id(text: object) -> bool:
    """True for a physical board's id (``board-<name>``)."""
    return is_board_id(text) and text.startswith("board-")  # type: ignore[union-attr]


def check_board_id(board_id: str) -> str:
    """Return ``board_id`` if it is one, else raise ``TopicError``."""
    if not is_board_id(board_id):
        raise TopicError(f"{board_id!r} is not a board id (expected board-<name> or web-<slot>)")
    return board_id


def check_client_id(client_id: str) -> str:
    """Return ``client_id`` if it can be a topic level, else raise ``TopicError``."""
    if not isinstance(client_id, str) or _CLIENT_ID.match(client_id) is None:
        raise TopicError(f"{client_id!r} is not a client id (letters, digits, '_', '.', '-'; at most 64)")
    return client_id


def check_role(role: str) -> str:
    """Return ``role`` if it is one of ``ROLES``, else raise ``TopicError``."""
    if role not in ROLES:
        raise TopicError(f"{role!r} is not a role (expected one of {', '.join(ROLES)})")
    return role


def web_board_id(slot: int) -> str:
    """The id of the dashboard's game slot ``slot`` (1..WEB_BOARD_SLOTS): ``web-<slot>``."""
    if not isinstance(slot, int) or not 1 <= slot <= WEB_BOARD_SLOTS:
        raise TopicError(f"web board slot must be 1..{WEB_BOARD_SLOTS}, got {slot!r}")
    return f"web-{slot}"


def web_board_ids() -> tuple[str, ...]:
    """Every web board id, slot order: ``web-1`` .. ``web-<WEB_BOARD_SLOTS>``."""
    return tuple(web_board_id(slot) for slot in range(1, WEB_BOARD_SLOTS + 1))


# ---- topics ----------------------------------------------------------------------------

def _board_topic(family: str, what: str) -> Callable[[str], str]:
    """The builder of a board's ``family`` topic, ``gobuddy/v1/board/<board_id>/<family>``;
    ``what`` is its docstring."""
    def build(board_id: str) -> str:
        return f"{ROOT}/board/{check_board_id(board_id)}/{family}"

    build.__name__ = build.__qualname__ = f"board_{family}"
    build.__doc__ = what
    return build


board_frame = _board_topic("frame", "Sensor frames of a board (board_frame, QoS 0).")
board_button = _board_topic("button", "Button presses of a board (button_event, QoS 1).")
board_event = _board_topic("event", "Game events of a board (game_event, QoS 1).")
board_state = _board_topic("state", "Retained current game of a board (board_state, QoS 1, retained).")
board_led = _board_topic("led", "Hints for a board's LEDs (engine_answer, QoS 1); written by engine workers only.")
board_stored = _board_topic("stored", "What of a board's games the recorder has stored (game_stored, QoS 1); "
                                      "written by recorders only.")
board_command = _board_topic("command", "What a person asks a board to do (board_command, QoS 1); written by the "
                                        "dashboard only.")


def _owned(role: str, client_id: str) -> str:
    check_role(role)
    check_client_id(client_id)
    if role == "board" and not is_physical_board_id(client_id):
        raise TopicError(f"a board's client id is its board id (board-<name>), got {client_id!r}")
    return f"{role}/{client_id}"


def engine_request(role: str, client_id: str) -> str:
    """Where the client ``client_id`` (of ``role``) publishes its engine requests."""
    return f"{ROOT}/engine/request/{_owned(role, client_id)}"


def engine_response(role: str, client_id: str) -> str:
    """The Response Topic on which the client ``client_id`` receives engine answers."""
    return f"{ROOT}/engine/response/{_owned(role, client_id)}"


def status(role: str, client_id: str) -> str:
    """Retained presence of one client."""
    return f"{ROOT}/status/{_owned(role, client_id)}"


def error(role: str, client_id: str) -> str:
    """Where one client reports the messages it rejected."""
    return f"{ROOT}/error/{_owned(role, client_id)}"


# ---- subscription filters --------------------------------------------------------------

def boards_filter(family: str) -> str:
    """One family on every board, e.g. ``gobuddy/v1/board/+/event``."""
    if family not in BOARD_FAMILIES:
        raise TopicError(f"{family!r} is not a board topic family ({', '.join(BOARD_FAMILIES)})")
    return f"{ROOT}/board/+/{family}"


def board_filter(board_id: str) -> str:
    """Every family of one board: ``gobuddy/v1/board/<board_id>/+``."""
    return f"{ROOT}/board/{check_board_id(board_id)}/+"


def engine_requests_filter(group: str | None = ENGINE_GROUP) -> str:
    """All engine requests, as the shared subscription ``$share/<group>/...`` (None: unshared)."""
    plain = f"{ROOT}/engine/request/+/+"
    return plain if group is None else shared(group, plain)


def status_filter(role: str | None = None) -> str:
    """Presence of every client, or of every client of one role."""
    return f"{ROOT}/status/{'+' if role is None else check_role(role)}/+"


def error_filter() -> str:
    """Error reports of every client."""
    return f"{ROOT}/error/+/+"


def everything_filter() -> str:
    """The whole v1 tree (dashboards, recorders, observers)."""
    return f"{ROOT}/#"


def shared(group: str, topic_filter: str) -> str:
    """``$share/<group>/<filter>``: subscribers of one group split the messages."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", group or ""):
        raise TopicError(f"{group!r} is not a shared subscription group name")
    return f"$share/{group}/{topic_filter}"


def unshared(topic_filter: str) -> str:
    """The filter without a ``$share/<group>/`` prefix (the filter itself when there is none)."""
    if topic_filter.startswith("$share/"):
        parts = topic_filter.split("/", 2)
        if len(parts) != 3 or not parts[1] or not parts[2]:
            raise TopicError(f"{topic_filter!r} is not a valid shared subscription")
        return parts[2]
    return topic_filter


def matches(topic_filter: str, topic: str) -> bool:
    """True if ``topic`` matches ``topic_filter`` (shared filters included)."""
    return topic_matches_sub(unshared(topic_filter), topic)


def check_filter(topic_filter: str) -> str:
    """Return ``topic_filter`` if it lies inside the v1 tree and is well formed, else raise."""
    plain = unshared(topic_filter)
    levels = plain.split("/")
    if not (plain == ROOT + "/#" or plain.startswith(ROOT + "/")):
        raise TopicError(f"{topic_filter!r} is not inside {ROOT}/")
    for index, level in enumerate(levels):
        if ("#" in level and (level != "#" or index != len(levels) - 1)) or ("+" in level and level != "+"):
            raise TopicError(f"{topic_filter!r} misuses a wildcard")
    return topic_filter


# ---- parsing ---------------------------------------------------------------------------

def parse(topic: str) -> TopicInfo:
    """Turn a concrete topic of the tree into a ``TopicInfo``; raise ``TopicError`` otherwise.

    Checks the number of levels, the family, and every id level; wildcards are errors."""
    prefix = ROOT + "/"
    if not isinstance(topic, str) or not topic.startswith(prefix):
        raise TopicError(f"{topic!r} is not inside {ROOT}/")
    levels = topic[len(prefix):].split("/")
    try:
        if levels[0] == "board" and len(levels) == 3 and levels[2] in BOARD_FAMILIES:
            return TopicInfo(topic, SPECS[levels[2]], board_id=check_board_id(levels[1]))
        if levels[0] == "engine" and len(levels) == 4 and levels[1] in ("request", "response"):
            _owned(levels[2], levels[3])
            return TopicInfo(topic, SPECS["engine_" + levels[1]], role=levels[2], client_id=levels[3])
        if levels[0] in ("status", "error") and len(levels) == 3:
            _owned(levels[1], levels[2])
            return TopicInfo(topic, SPECS[levels[0]], role=levels[1], client_id=levels[2])
    except TopicError as exc:
        raise TopicError(f"{topic!r}: {exc}") from None
    raise TopicError(f"{topic!r} is not a topic of the {ROOT} tree")
