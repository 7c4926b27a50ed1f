"""``python -m edge``: the edge agent of one board (on the Raspberry Pi, or on the simulator).

    python -m edge --serial /dev/ttyACM0 --board-id board-kitchen --username board-kitchen \\
        --broker-host 192.168.1.10 --broker-port 8883 --tls-ca ca.crt \\
        --password-file board-kitchen.password --data-dir /var/lib/gobuddy
    python -m edge --simulate --auto-play --board-id board-sim --username board-sim \\
        --password-file var/broker/secrets/board-sim.password --data-dir var/edge   # what `make run` starts

Calibration: with no stored calibration (or ``--calibrate``, or TURN DONE held for two
seconds on the empty board) the agent measures the empty board. With ``--color-sensing``
it then asks, by blinking LEDs, for black stones on row 7 (A7 to J7), then TURN DONE,
then white stones on row 3 (A3 to J3), then TURN DONE; it checks that the two colours
read apart (or names the stones in the way), stores the result per board, blinks the
stones to take off, and from then on reads stone colours: a stone of the wrong colour
is a problem. Holding TURN DONE in those steps goes on without colour. Without
``--color-sensing`` only the empty board is measured (occupancy sensing: colour follows
the turn order); a colour calibration stored earlier is still used.

``--simulate`` starts a simulated board (``edge.simulation.pty_board``) on a pseudo-terminal linked
at ``<data-dir>/sim-board.pty`` and drives the agent through it exactly as a real board
would; ``--auto-play`` has it play games by itself (``edge.simulation.autoplay``). New games take
``--mode``, ``--komi``, ``--handicap`` and ``--engine-color``; ``--teach LEVEL`` turns the
teacher on (``edge.teacher``; the dashboard's System page can change it per board). The agent runs until
SIGTERM or Ctrl-C, then publishes its offline status and exits.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from edge.agent import AgentConfig, EdgeAgent
from edge.game import GameSettings, Mode
from edge.link.serial_link import SerialLink
from edge.teacher import LEVELS
from gobuddy.bus import BusClient
from gobuddy.bus.cli import add_broker_arguments, bus_config_from_args
from gobuddy.bus.lifecycle import stop_on_signals
from gobuddy.go.coords import color_from_str


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m edge", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--serial", help="the board's serial port (e.g. /dev/ttyACM0) or a pyserial URL")
    source.add_argument("--simulate", action="store_true", help="run a simulated board on a pseudo-terminal")
    parser.add_argument("--board-id", required=True, help="board-<name>: also the MQTT username and client id")
    parser.add_argument("--data-dir", type=Path, default=Path("var/edge"),
                        help="calibration, journal and outbox (default var/edge)")
    game = parser.add_argument_group("new games")
    game.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.HINTS_ON_REQUEST.value)
    game.add_argument("--komi", type=float, default=7.0)
    game.add_argument("--handicap", type=int, default=0)
    game.add_argument("--engine-color", choices=("B", "W"), default="W", help="the engine's side in vs_engine")
    game.add_argument("--teach", metavar="LEVEL", choices=LEVELS,
                      help="the teacher on the board: judge each learner's stone at this level (e.g. '25 kyu'); "
                           "a mistake blinks until the stone is lifted (taken back) or TURN DONE keeps it")
    engine = parser.add_argument_group("engine requests")
    engine.add_argument("--visits", type=int, default=200, help="search visits per hint or engine move")
    engine.add_argument("--think-ms", type=int, default=2000, help="search time limit per request")
    engine.add_argument("--request-timeout", type=float, default=8.0, help="seconds to wait for an answer")
    agent = parser.add_argument_group("agent")
    agent.add_argument("--calibrate", action="store_true", help="calibrate on start (the board must be empty)")
    agent.add_argument("--color-sensing", action="store_true",
                       help="calibrate with black and white reference stones and read stone colours (see above)")
    agent.add_argument("--frames-per-s", type=float, default=5.0, help="board frames published per second (0: none)")
    agent.add_argument("--fsync", action="store_true", help="fsync the journal on every event")
    agent.add_argument("--log-level", default="INFO")
    sim = parser.add_argument_group("simulation (--simulate)")
    sim.add_argument("--auto-play", action="store_true", help="the simulated board plays games by itself")
    sim.add_argument("--auto-play-players", choices=("gnugo", "random"), default="gnugo")
    sim.add_argument("--seed", type=int, default=0, help="seed of the simulated board and players")
    add_broker_arguments(parser)
    return parser


def agent_config(args: argparse.Namespace) -> AgentConfig:
    """The agent's configuration from parsed arguments (``SystemExit`` naming a bad one)."""
    mode = Mode(args.mode)
    try:
        settings = GameSettings(komi=args.komi, handicap=args.handicap, mode=mode,
                                engine_color=color_from_str(args.engine_color) if mode is Mode.VS_ENGINE else None)
    except ValueError as exc:
        raise SystemExit(f"game settings: {exc}") from None
    return AgentConfig(board_id=args.board_id, data_dir=args.data_dir, settings=settings, visits=args.visits,
                       think_ms=args.think_ms, request_timeout_s=args.request_timeout,
                       frames_per_s=args.frames_per_s, calibrate_on_start=args.calibrate,
                       colour_sensing=args.color_sensing, fsync=args.fsync, teach=args.teach)


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.username is None:
        args.username = args.board_id
    config = agent_config(args)
    try:
        bus_config = bus_config_from_args(args, role="board", client_id=args.board_id, persistent_session=True,
                                          reconnect_max_s=5.0)
    except ValueError as exc:
        raise SystemExit(f"broker settings: {exc}") from None
    config.data_dir.mkdir(parents=True, exist_ok=True)
    board = player = None
    port = args.serial
    if args.simulate:
        from edge.simulation.pty_board import PtyBoard
        from edge.simulation.sensor_model import SensorModel
        from edge.simulation.simulator import BoardSimulator

        board = PtyBoard(BoardSimulator(SensorModel(seed=args.seed), seed=args.seed),
                         link=config.data_dir / "sim-board.pty").start()
        port = board.path
    agent = EdgeAgent(config, BusClient(bus_config), SerialLink(port, size=config.settings.size)).start()
    if board is not None and args.auto_play:
        from edge.simulation.autoplay import AutoPlayConfig, AutoPlayer

        player = AutoPlayer(board, AutoPlayConfig(seed=args.seed, players=args.auto_play_players,
                                                  engine_color=config.settings.engine_color),
                            recorded=lambda: list(agent.record.game.moves) if agent.record else [],
                            calibration=lambda: agent.cal.prompt).start()
    stop = stop_on_signals()
    stop.wait()
    logging.getLogger("edge").info("stopping")
    if player is not None:
        player.stop()
    agent.stop()
    if board is not None:
        board.stop()


if __name__ == "__main__":
    main()
