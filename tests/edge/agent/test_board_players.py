"""Who plays at the board: guests until the dashboard names them (``set_players``), then
those names in every game_started, kept across a restart of the agent; against the
engine its side is the engine's."""

from __future__ import annotations

from edge.board_players import PlayerChoice
from edge.game import GameSettings, Mode
from gobuddy.bus import BusClient, topics
from gobuddy.bus.board_messages import BoardCommand
from gobuddy.go.coords import WHITE
from tests.edge.agent.rig import AgentRig, wait_until


def players_of(event: dict) -> dict[str, tuple[str, str]]:
    return {side: (p["name"], p["kind"]) for side, p in event["players"].items()}


def test_guests_until_named_then_the_names_across_a_restart(broker, observer, tmp_path):
    dashboard = BusClient(broker.config("dashboard"))
    dashboard.start()
    try:
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            wait_until(lambda: observer.events("game_started"), 10, "the first game")
            assert players_of(observer.events("game_started")[0]) == {"B": ("guest", "human"),
                                                                      "W": ("guest", "human")}
            dashboard.publish(topics.board_command("board-t1"), BoardCommand(
                board_id="board-t1", command="set_players", players={"B": "Ana", "W": None}, by="ana"), wait=True)
            wait_until(lambda: ((observer.status() or {}).get("details") or {}).get("player_black") == "Ana", 10,
                       "the status to name Ana")
            assert observer.status()["details"].get("player_white") is None
            rig.stop_agent()
            rig.start_agent()  # the choice outlives a restart
            rig.press("START")
            wait_until(lambda: len(observer.events("game_started")) >= 2, 10, "the second game")
            assert players_of(observer.events("game_started")[-1]) == {"B": ("Ana", "human"),
                                                                       "W": ("guest", "human")}
    finally:
        dashboard.stop()


def test_against_the_engine_the_person_keeps_their_side(broker, observer, tmp_path):
    PlayerChoice(tmp_path / "players.json").choose({"B": "Ben", "W": "Cleo"})
    with AgentRig(broker, tmp_path, settings=GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE)) as rig:
        rig.press("START")
        wait_until(lambda: observer.events("game_started"), 10, "the game")
        assert players_of(observer.events("game_started")[0]) == {"B": ("Ben", "human"),
                                                                  "W": ("gobuddy", "engine")}


def test_a_broken_choice_file_means_guests(tmp_path):
    path = tmp_path / "players.json"
    for text in ("not json", "[1, 2]", '{"B": 7, "W": "' + "x" * 65 + '", "X": "Eve"}'):
        path.write_text(text)
        assert PlayerChoice(path).names == {}
    path.write_text('{"B": "Ana", "W": "Ben"}')
    assert PlayerChoice(path).names == {"B": "Ana", "W": "Ben"}


def test_blank_names_are_guests_and_spaces_are_tidied(tmp_path):
    choice = PlayerChoice(tmp_path / "players.json")
    choice.choose({"B": "  Ana \t Lee ", "W": "   "})  # what a command may carry | what the games get
    assert choice.names == {"B": "Ana Lee"}
    assert PlayerChoice(tmp_path / "players.json").names == {"B": "Ana Lee"}
    choice.choose(None)
    assert choice.names == {} and PlayerChoice(tmp_path / "players.json").names == {}
