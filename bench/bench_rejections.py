"""What an invalid message costs each consumer: rejections per second and CPU per
rejection, for the engine worker, the recorder (SQLite), the edge agent (on the simulated
board) and the dashboard's live feed, each a real process on a real Mosquitto. Writes a
markdown section to stdout.

    python -m bench.bench_rejections [--messages 3000]

Payloads are mutations of the schemas' own examples (``tests/bus/mutations.py``: the
fuzz of ``make test``) that the broker accepts and the consumer must refuse, sent from
an account allowed to publish on the consumer's topic. CPU is the consumer process's
user+system time (``/proc``) while it works through them, less its idle rate measured
just before; a consumer is done when its CPU rate is back at idle. The rate counts from
the first message sent to that moment, so it includes the broker's delivery.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_bus import cpu_seconds
from bench.bench_engine import SHIPPED
from gobuddy.bus import topics
from gobuddy.bus.inbox import Rejected, decode_incoming
from gobuddy.bus.validation import examples
from tests.bus.mutations import mutate
from tests.e2e.harness import broker_args
from tests.mqtt_broker import REPO, MosquittoBroker


def invalid_payloads(kind: str, topic: str, count: int, overrides: dict, seed: int) -> list[bytes]:
    """``count`` mutations of ``kind``'s examples that ``decode_incoming`` refuses on ``topic``."""
    rng, out = random.Random(seed), []
    bases = [{**example, **overrides} for example in examples(kind)]
    while len(out) < count:
        _, payload = mutate(rng, rng.choice(bases))
        if len(payload) > 1_000_000:
            continue  # the broker's max_packet_size would drop the sender instead
        try:
            decode_incoming(topic, payload)
        except Rejected:
            out.append(payload)
    return out


def cpu_rate(pid: int, seconds: float) -> float:
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def measure(broker: MosquittoBroker, pid: int, sender: str, topic: str, payloads: list[bytes]) -> tuple[float, float]:
    """(rejections per second, CPU ms per rejection) of process ``pid``."""
    idle = cpu_rate(pid, 2.0)
    client = broker.raw_client(sender)
    start_cpu, started = cpu_seconds(pid), time.perf_counter()
    infos = [client.publish(topic, payload, qos=1) for payload in payloads]
    for info in infos:
        info.wait_for_publish(60)
    quiet = 0
    while quiet < 2 and time.perf_counter() - started < 300:
        quiet = quiet + 1 if cpu_rate(pid, 0.25) <= idle + 0.02 else 0
    elapsed = time.perf_counter() - started - 0.5  # less the two quiet windows
    client.disconnect()
    client.loop_stop()
    cpu = cpu_seconds(pid) - start_cpu - idle * (time.perf_counter() - started)
    return len(payloads) / elapsed, max(cpu, 0.0) * 1000 / len(payloads)


def spawn(broker: MosquittoBroker, tmp: Path, name: str, argv: list[str], account: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *argv, *broker_args(broker, account)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=open(tmp / f"{name}.log", "wb"))


FEED = ("import sys, time; from dashboard.config import from_args; from dashboard.live_feed import LiveFeed; "
        "feed = LiveFeed(from_args(sys.argv[1:]).bus); time.sleep(3600)")


def run(messages: int) -> str:
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name, MosquittoBroker(boards=("board-1", "board-2")) as broker:
        tmp = Path(tmp_name)
        board = {"board_id": "board-1"}
        consumers = [
            ("engine worker", spawn(broker, tmp, "worker", ["-m", "engine_worker", "--model", str(SHIPPED)],
                                    "engine-rej"),
             "board-1", topics.engine_request("board", "board-1"), "engine_request", {"board_id": None}),
            ("recorder (SQLite)", spawn(broker, tmp, "recorder", ["-m", "dashboard.recorder", "--db",
                                                                   f"sqlite:///{tmp / 'r.db'}"], "recorder"),
             "board-1", topics.board_event("board-1"), "game_event", board),
            ("edge agent (simulated board)", spawn(broker, tmp, "edge", [
                "-m", "edge", "--simulate", "--board-id", "board-2", "--data-dir", str(tmp / "edge"),
                "--frames-per-s", "0"], "board-2"),
             "engine-1", topics.board_led("board-2"), "engine_answer", {"board_id": "board-2"}),
            ("dashboard live feed", spawn(broker, tmp, "feed", ["-c", FEED, "--db", f"sqlite:///{tmp / 'd.db'}"],
                                          "dashboard"),
             "board-1", topics.board_state("board-1"), "board_state", board),
        ]
        try:
            time.sleep(8.0)  # imports, model loading, the simulated board's calibration
            for n, (name, process, sender, topic, kind, overrides) in enumerate(consumers):
                payloads = invalid_payloads(kind, topic, messages, overrides, seed=n)
                rate, cpu_ms = measure(broker, process.pid, sender, topic, payloads)
                rows.append(f"| {name} | `{topic}` ({kind}) | {rate:,.0f} | {cpu_ms:.2f} ms | "
                            f"{'yes' if process.poll() is None else 'NO'} |")
        finally:
            for _, process, *_ in consumers:
                process.terminate()
            for _, process, *_ in consumers:
                process.wait(15)
    return "\n".join([
        "## Invalid messages at each consumer (`bench.bench_rejections`)",
        "",
        f"{messages} invalid payloads per consumer (mutations of the schemas' examples that the broker delivers "
        "and the consumer must refuse: deleted and retyped fields, junk, deep nesting, invalid UTF-8, bodies up "
        "to 1 MB), each consumer a real process on loopback Mosquitto. Every refusal is logged and reported on "
        "the consumer's error topic (rate limited).",
        "",
        "| consumer | topic | rejections per second | CPU per rejection | process alive after |",
        "|---|---|---|---|---|",
        *rows,
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=3000)
    args = parser.parse_args(argv)
    print(run(args.messages))


if __name__ == "__main__":
    main()
