"""The edge agent's LED and engine-response handlers under fuzz (a real Mosquitto, the
real agent on its pseudo-terminal board): 400 payloads mutated from the engine answer's
own examples (deleted and retyped fields, junk values, huge and deep arrays, invalid
UTF-8, NaN, nesting to 100,000) on the board's ``led`` and response topics, as an engine
account could send them. Afterwards the agent is alive, its bus thread too, nothing was
lit, and a valid hint still lights its point."""

from __future__ import annotations

import random
import time

from gobuddy.bus import BusClient, topics
from gobuddy.bus.validation import examples
from tests.bus.mutations import deep, mutate
from tests.edge.agent.rig import AgentRig, wait_until
from tests.edge.agent.test_hints import answer, key_after


def test_fuzzed_answers_light_nothing_and_break_nothing(broker, observer, tmp_path) -> None:
    rng = random.Random(17)
    engine = broker.raw_client("engine-1")
    good = BusClient(broker.config("engine-2"))
    good.start()
    try:
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5 C3")
            observer.wait_moves(2)
            led, response = topics.board_led("board-t1"), topics.engine_response("board", "board-t1")
            base = {**examples("engine_answer")[0], "board_id": "board-t1"}
            sent = []
            for n in range(400):
                _, payload = mutate(rng, base)
                sent.append(engine.publish(led if n % 2 else response, payload, qos=1))
            for payload in (deep(100_000), b"\xff\xfe", b"NaN", b'{"id": "x"' + b" " * 300_000 + b"}"):
                sent.append(engine.publish(led, payload, qos=1))
            for info in sent:
                info.wait_for_publish(30)
            time.sleep(1.0)
            assert rig.board.leds().mode == "OFF"
            assert rig.agent.bus.network_alive
            good.publish(led, answer("board-t1:hint:2:77", key_after("E5 C3"), "G3"), wait=True)
            wait_until(lambda: rig.board.leds().points == ("G3",), 10, "a valid hint lit after the fuzz")
            assert rig.agent.bus.stats["rejected"] > 0
    finally:
        engine.disconnect()
        engine.loop_stop()
        good.stop()
