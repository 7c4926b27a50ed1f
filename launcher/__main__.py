"""``python -m launcher`` (``make run``): the whole system on one machine.

Starts, in order: Mosquitto with the project's configuration (accounts and ACL made by
``broker/``), two engine workers, the recorder, the game reviewer (``dashboard.review
--watch``), the dashboard and the edge agent on the simulated board; prints where to look (the dashboard's address, and the broker with the
read-only ``observer`` account so any MQTT client can watch); and on Ctrl-C (or when one
service dies) stops everything, newest first. Everything it writes lives under
``--var`` (default ``var/``, ignored by git): broker data and log, the accounts (one
password file per service in ``var/broker/secrets/``: each service is given only its
own), the SQLite database, the board's calibration and journal, and each service's log.

The simulated board models stone colours, so its agent runs with ``--color-sensing``
while it plays by itself: before the first game its auto-player lays the black and
white reference stones the calibration asks for (the result is stored, and used as it
is on the next start). With ``--no-auto-play`` nobody could lay them, so the board
senses occupancy only (the empty board is measured by itself). Not done here: moving a
``var/`` calibrated for occupancy only to colour sensing (delete ``var/edge/calibration``
to calibrate afresh).
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from engine_worker.shipped import level_models as calibrated_level_models, shipped_twins

REPO = Path(__file__).resolve().parent.parent


@dataclass
class LaunchConfig:
    var: Path
    broker_port: int = 1883
    dashboard_port: int = 8501
    dashboard_address: str = "127.0.0.1"
    workers: int = 2
    visits: int = 200
    models: tuple[Path, ...] = shipped_twins(REPO / "models")  # the engine workers': one per board size
    # what the opponent levels below "full" play: the models their calibration played
    level_models: tuple[Path, ...] = calibrated_level_models(REPO / "models")
    board_id: str = "board-sim"
    simulate_game: bool = True
    extra_env: dict[str, str] = field(default_factory=dict)


@dataclass
class Service:
    name: str
    process: subprocess.Popen
    log: Path
    argv: list[str] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)  # when it was restarted (time.time())


RESTARTS_PER_MINUTE = 5  # beyond this a service that keeps dying stops everything


def wait_for_port(port: int, seconds: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"exited with code {proc.returncode} before listening on port {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {seconds:.0f} s")


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


class Launcher:
    """Starts services as child processes and stops them all, newest first."""

    def __init__(self, config: LaunchConfig) -> None:
        self.config = config
        self.services: list[Service] = []
        self.logs = config.var / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)

    def start(self, name: str, argv: list[str]) -> Service:
        log = self.logs / f"{name}.log"
        handle = open(log, "ab")
        proc = subprocess.Popen(argv, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        service = Service(name, proc, log, list(argv))
        self.services.append(service)
        print(f"  started {name:<12} pid {proc.pid:<7} log {log.relative_to(REPO) if log.is_relative_to(REPO) else log}")
        return service

    def stop_all(self) -> None:
        for service in reversed(self.services):
            if service.process.poll() is None:
                service.process.send_signal(signal.SIGTERM)
        deadline = time.time() + 10
        for service in reversed(self.services):
            try:
                service.process.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                service.process.kill()
                service.process.wait()
            print(f"  stopped {service.name} (exit {service.process.returncode})")

    def watch(self) -> None:
        """Block until Ctrl-C. A service that exits is started again (a service whose bus
        thread died exits with status 70 for this, see ``gobuddy.bus.client``), unless it
        is the broker or it died more than ``RESTARTS_PER_MINUTE`` times in a minute: then
        raise ``RuntimeError`` with the end of its log."""
        while True:
            for service in self.services:
                code = service.process.poll()
                if code is None:
                    continue
                now = time.time()
                service.restarts = [t for t in service.restarts if now - t < 60]
                tail = service.log.read_text(errors="replace").splitlines()[-15:]
                if service.name == "broker" or len(service.restarts) >= RESTARTS_PER_MINUTE:
                    raise RuntimeError(f"{service.name} exited with code {code}; last lines of {service.log}:\n"
                                       + "\n".join(tail))
                print(f"  {service.name} exited with code {code}: starting it again", flush=True)
                handle = open(service.log, "ab")
                service.process = subprocess.Popen(service.argv, cwd=REPO, stdout=handle, stderr=subprocess.STDOUT,
                                                   stdin=subprocess.DEVNULL, start_new_session=True)
                service.restarts.append(now)
            time.sleep(0.5)


def prepare_broker(config: LaunchConfig) -> tuple[Path, Path]:
    """Accounts (the dynamic-security file and one password file per account) and
    mosquitto.conf under ``var/broker``; returns the configuration and the secrets folder."""
    broker = config.var / "broker"
    data = broker / "data"
    data.mkdir(parents=True, exist_ok=True)
    dynsec, secrets_dir = broker / "dynamic-security.json", broker / "secrets"
    subprocess.run([sys.executable, str(REPO / "broker" / "make_users.py"), "--boards", config.board_id,
                    "--engines", str(max(1, config.workers)), "--dynsec", str(dynsec),
                    "--secrets-dir", str(secrets_dir)], check=True, cwd=REPO)
    run_as = "root"
    # Mosquitto started as root drops to the `mosquitto` user, which must be able to reach
    # the broker folder; where an ancestor is closed to others (a private temp dir) it
    # keeps root instead.
    reachable = all(p.stat().st_mode & 0o001 for p in broker.resolve().parents)
    if os.geteuid() == 0 and reachable:
        try:
            user = pwd.getpwnam("mosquitto")
            for path in (broker, data, dynsec):  # never the services' secrets
                os.chown(path, user.pw_uid, user.pw_gid)
            log = broker / "mosquitto.log"
            log.touch()
            os.chown(log, user.pw_uid, user.pw_gid)
            run_as = "mosquitto"
        except KeyError:
            pass
    else:
        run_as = pwd.getpwuid(os.geteuid()).pw_name
    conf = broker / "mosquitto.conf"
    subprocess.run([sys.executable, str(REPO / "broker" / "make_config.py"), "--out", str(conf),
                    "--data-dir", str(data), "--dynsec", str(dynsec), "--port", str(config.broker_port),
                    "--log-file", str(broker / "mosquitto.log"), "--run-as", run_as], check=True, cwd=REPO)
    return conf, secrets_dir


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None)
    if not found:
        raise SystemExit("mosquitto is not installed: run `make run` (it installs it) or apt-get install mosquitto")
    return found


def edge_command(config: LaunchConfig, broker_args: list[str]) -> list[str]:
    """``python -m edge`` on the simulated board; with auto-play (someone to lay the
    reference stones) it senses colours, without it occupancy (see the module docstring)."""
    command = [sys.executable, "-m", "edge", "--simulate", "--board-id", config.board_id, *broker_args,
               "--data-dir", str(config.var / "edge")]
    if config.simulate_game:
        command += ["--auto-play", "--color-sensing"]
    return command


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM (systemd, timeout, docker stop) stops like Ctrl-C


def run(config: LaunchConfig) -> None:
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    for model in (*config.models, *config.level_models):
        if not model.exists():
            raise SystemExit(f"the model {model} is missing: it ships with the repository (git lfs is not used)")
    for port, what in ((config.broker_port, "broker"), (config.dashboard_port, "dashboard")):
        if not port_free(port):
            raise SystemExit(f"port {port} for the {what} is taken: pass --{what}-port")
    conf, secrets_dir = prepare_broker(config)
    db_url = f"sqlite:///{(config.var / 'gobuddy.db').resolve()}"
    py = sys.executable
    broker_args = ["--broker-host", "127.0.0.1", "--broker-port", str(config.broker_port)]

    def account(name: str) -> list[str]:  # each service gets its own password file, no other
        return [*broker_args, "--username", name, "--password-file", str(secrets_dir / f"{name}.password")]

    observer_password = (secrets_dir / "observer.password").read_text().strip()
    launcher = Launcher(config)
    print("Go Learning Buddy: starting")
    try:
        broker = launcher.start("broker", [mosquitto_binary(), "-c", str(conf)])
        wait_for_port(config.broker_port, 10, broker.process)
        for i in range(config.workers):
            launcher.start(f"engine-{i + 1}", [py, "-m", "engine_worker", *account(f"engine-{i + 1}"),
                                               *(a for m in config.models for a in ("--model", str(m))),
                                               *(a for m in config.level_models
                                                 for a in ("--level-model", str(m))),
                                               "--visits", str(config.visits),
                                               "--threads", "1", "--nice", "10"])
        launcher.start("recorder", [py, "-m", "dashboard.recorder", *account("recorder"), "--db", db_url])
        # every finished game reviewed (its positions analysed, each player's report stored)
        launcher.start("reviewer", [py, "-m", "dashboard.review", *account("reviewer"), "--db", db_url,
                                    "--watch", "30", "--log-level", "INFO"])
        dashboard = launcher.start("dashboard", [
            py, "-m", "streamlit", "run", str(REPO / "dashboard" / "app.py"), "--server.headless", "true",
            "--server.address", config.dashboard_address, "--server.port", str(config.dashboard_port),
            "--browser.gatherUsageStats", "false", "--",
            *account("dashboard"), "--db", db_url])
        launcher.start("edge", edge_command(config, account(config.board_id)))
        wait_for_port(config.dashboard_port, 60, dashboard.process)
        print()
        print(f"  Dashboard:  http://{config.dashboard_address}:{config.dashboard_port}")
        print(f"  Broker:     mqtt://127.0.0.1:{config.broker_port}  (watch as 'observer', "
              f"password in {secrets_dir / 'observer.password'})")
        print(f"              mosquitto_sub -h 127.0.0.1 -p {config.broker_port} -u observer -i observer "
              f"-P '{observer_password}' -t 'gobuddy/#' -v")
        print(f"  Database:   {db_url}")
        print(f"  Logs:       {launcher.logs}")
        print("\nPress Ctrl-C to stop everything.")
        launcher.watch()
    except KeyboardInterrupt:
        print("\nstopping ...")
    except RuntimeError as exc:
        print(f"\nerror: {exc}\nstopping ...", file=sys.stderr)
        raise SystemExit(1) from None
    finally:  # whatever went wrong, nothing started is left running
        launcher.stop_all()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--var", type=Path, default=REPO / "var", help="where runtime data and logs go")
    parser.add_argument("--broker-port", type=int, default=1883)
    parser.add_argument("--dashboard-port", type=int, default=8501)
    parser.add_argument("--dashboard-address", default="127.0.0.1", help="0.0.0.0 to serve the LAN")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--visits", type=int, default=200)
    parser.add_argument("--model", type=Path, action="append", default=None,
                        help="the engine workers' ONNX model, once per board size (default: the shipped "
                             "int8 twins, models/gobuddy-9x9.int8.onnx and gobuddy-13x13.int8.onnx)")
    parser.add_argument("--no-auto-play", action="store_true", help="simulated board waits instead of playing")
    args = parser.parse_args(argv)
    run(LaunchConfig(var=args.var.resolve(), broker_port=args.broker_port, dashboard_port=args.dashboard_port,
                     dashboard_address=args.dashboard_address, workers=args.workers, visits=args.visits,
                     models=tuple(m.resolve() for m in args.model or LaunchConfig.models),
                     simulate_game=not args.no_auto_play))


if __name__ == "__main__":
    main()
