"""A real Mosquitto for tests, with the project's own ACL and generated accounts.

    from tests.mqtt_broker import MosquittoBroker, Inbox

    with MosquittoBroker(boards=("board-1", "board-2")) as broker:
        client = BusClient(broker.config("recorder", persistent_session=True))
        ...

Each ``MosquittoBroker`` runs its own ``mosquitto`` on a free loopback port, in a fresh
temporary directory holding the generated configuration (``broker/make_config.py`` with
``broker/mosquitto.conf.template``), the dynamic-security file and the password files
(``broker/make_users.py``: the project's own accounts and ACLs), the persistence store
and the log. With ``tls=True`` it also serves TLS on a second port with certificates
from ``broker/make_certs.sh`` (``client_certs`` names the client certificates to make;
``require_client_cert`` logs in by certificate there). ``restart()`` keeps the port and
the persistence store.

Accounts: the ``boards`` (``board-<name>``), ``engine-1`` .. ``engine-<engines>``,
``recorder``, ``dashboard``, the ``observers`` and ``health``, with random passwords in
``broker.credentials``. The broker binds each client id to its account, so one account
is one client: ``broker.config(user)`` builds a ``BusConfig`` with ``client_id = user``
and quick reconnects; ``broker.config("recorder", client_id="recorder-away")`` is the
account ``recorder-away`` (same role), made on the running broker through the plugin's
control API by a test-only admin account (``ensure_account``).
``broker.raw_client(user)`` is a connected bare paho client for
sending what ``BusClient`` refuses to send (malformed payloads, forbidden topics).

No pytest in here: use it from a fixture (see ``tests/bus/conftest.py``) or directly.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import paho.mqtt.client as mqtt

from gobuddy.bus.config import BusConfig
from tests.free_ports import free_port, free_ports

REPO = Path(__file__).resolve().parents[1]
BROKER_DIR = REPO / "broker"
_ids = itertools.count(1)
ADMIN = "tests-admin"  # the test broker's own admin account (adds accounts at run time)


def find_mosquitto() -> str | None:
    """Path of the mosquitto binary (Debian puts it in /usr/sbin, often not on PATH)."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)


def _load(name: str) -> Any:
    """Import ``broker/<name>.py`` (a script folder, not a package) once per process."""
    module_name = f"gobuddy_broker_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, BROKER_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _die_with_parent() -> None:
    """In the child before exec: Linux sends it SIGTERM when the test process dies, so a
    killed test run leaves no broker behind."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass



def role_of(username: str) -> str:
    """The role an account plays (``board-1`` → board, ``engine-2`` → engine, ...)."""
    return _load("make_users").role_of(username)


class MosquittoBroker:
    """One Mosquitto process for tests; a context manager (start on enter, stop on exit)."""

    host = "127.0.0.1"

    def __init__(self, *, boards: tuple[str, ...] = ("board-1", "board-2"), engines: int = 4,
                 observers: tuple[str, ...] = ("observer", "observer-2", "observer-3"), tls: bool = False,
                 client_certs: tuple[str, ...] = (), require_client_cert: bool = False, keep_dir: bool = False):
        self.binary = find_mosquitto()
        if self.binary is None:
            raise RuntimeError("mosquitto is not installed (Debian package 'mosquitto')")
        self.workdir = Path(tempfile.mkdtemp(prefix="gobuddy-mosquitto-"))
        self.keep_dir = keep_dir
        self.tls = tls
        self.require_client_cert = require_client_cert
        users = _load("make_users")
        self.dynsec_file = self.workdir / "dynamic-security.json"
        self.secrets_dir = self.workdir / "secrets"
        self.accounts: list[str] = users.accounts(list(boards), engines, list(observers))
        self.credentials: dict[str, str] = users.write_accounts(self.accounts, self.dynsec_file, self.secrets_dir)
        self._admin_password = secrets.token_urlsafe(12)
        self._add_test_admin()
        self._account_lock = threading.Lock()
        self.data_dir = self.workdir / "data"
        self.data_dir.mkdir()
        self.log_file = self.workdir / "mosquitto.log"
        self.certs_dir = self.workdir / "certs"
        if tls:
            names = [arg for name in client_certs for arg in ("-c", name)]
            subprocess.run([str(BROKER_DIR / "make_certs.sh"), "-o", str(self.certs_dir), *names], check=True,
                           capture_output=True)
        self.port = 0
        self.tls_port: int | None = None
        self.process: subprocess.Popen | None = None

    # ---- process -------------------------------------------------------------------------

    def _write_config(self) -> Path:
        make_config = _load("make_config")
        settings = make_config.BrokerSettings(
            data_dir=self.data_dir, dynsec_file=self.dynsec_file,
            port=self.port, bind_address=self.host, tls_port=self.tls_port, tls_bind_address=self.host,
            certs_dir=self.certs_dir, require_client_cert=self.require_client_cert, log_file=self.log_file,
            run_as="root" if os.geteuid() == 0 else None,  # as root, keep root: the temp dir is ours
        )
        path = self.workdir / "mosquitto.conf"
        path.write_text(make_config.render(settings))
        return path

    def start(self) -> "MosquittoBroker":
        """Start Mosquitto (choosing free ports the first time) and wait until it listens."""
        attempts = 1 if self.port else 5
        for _ in range(attempts):
            if attempts > 1:
                self.port, self.tls_port = free_ports(2) if self.tls else (free_port(), None)
            config = self._write_config()
            self.process = subprocess.Popen([self.binary, "-c", str(config)], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent)
            if self._wait_listening(5.0):
                return self
            self._terminate(signal.SIGKILL)
        raise RuntimeError(f"mosquitto did not start; log:\n{self.log_text()[-3000:]}")

    def _wait_listening(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        ports = [p for p in (self.port, self.tls_port) if p]
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                return False
            try:
                for port in ports:
                    socket.create_connection((self.host, port), timeout=0.2).close()
                return True
            except OSError:
                time.sleep(0.02)
        return False

    def _terminate(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the process (SIGTERM saves the persistence store; SIGKILL does not)."""
        self._terminate(sig)

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def restart(self, sig: int = signal.SIGTERM) -> None:
        """Stop and start again on the same port(s) with the same persistence store."""
        self.stop(sig)
        self.start()

    def close(self) -> None:
        """Stop and remove the temporary directory (unless ``keep_dir``)."""
        self.stop()
        if not self.keep_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "MosquittoBroker":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def log_text(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""

    def wait_for_autosave(self, timeout_s: float = 5.0) -> None:
        """Wait until Mosquitto has written its store anew (from now), so that what it
        acknowledged before the call survives a SIGKILL. With ``autosave_interval 1`` a
        save comes every 1-2 s (Mosquitto 2.0.11 saves when MORE than the interval has
        passed); it writes ``mosquitto.db.new`` and renames it, so a new file is complete."""
        store = self.data_dir / "mosquitto.db"

        def identity() -> tuple[int, int] | None:
            try:
                stat = store.stat()
            except FileNotFoundError:
                return None
            return stat.st_ino, stat.st_mtime_ns

        before, deadline = identity(), time.monotonic() + timeout_s
        while identity() in (before, None):
            if time.monotonic() > deadline:
                raise TimeoutError("mosquitto did not autosave")
            time.sleep(0.02)

    # ---- accounts ------------------------------------------------------------------------

    def _add_test_admin(self) -> None:
        """Add ``ADMIN`` (may use the plugin's control topics only) to the dynsec file."""
        users = _load("make_users")
        data = json.loads(self.dynsec_file.read_text())
        control = "$CONTROL/dynamic-security/#"
        data["roles"].append({"rolename": ADMIN, "acls": [
            {"acltype": kind, "topic": control, "priority": 0, "allow": True}
            for kind in ("publishClientSend", "publishClientReceive", "subscribePattern")]})
        data["clients"].append({"username": ADMIN, "clientid": ADMIN, "roles": [{"rolename": ADMIN}],
                                **users.hash_password(self._admin_password, iterations=101)})
        self.dynsec_file.write_text(json.dumps(data))

    def ensure_account(self, name: str) -> str:
        """Make the account ``name`` (its role from its name, as ``make_users`` would) on
        the running broker unless it exists; return its password."""
        with self._account_lock:
            if name in self.credentials:
                return self.credentials[name]
            users = _load("make_users")
            password = secrets.token_urlsafe(12)
            self._control([{"command": "createRole", "rolename": name, "acls": users.acls_for(name)},
                           {"command": "createClient", "username": name, "password": password, "clientid": name,
                            "roles": [{"rolename": name}]}])
            self.credentials[name] = password
            self.accounts.append(name)
            (self.secrets_dir / f"{name}.password").write_text(password + "\n")
            return password

    def _control(self, commands: list[dict[str, Any]]) -> None:
        """Send dynamic-security commands as the test admin; raise on any error."""
        replies: list[Any] = []
        done = threading.Event()

        def on_message(c: Any, u: Any, msg: Any) -> None:
            replies.append(json.loads(msg.payload))
            done.set()

        client = self.raw_client(ADMIN, password=self._admin_password, on_message=on_message)
        try:
            client.subscribe("$CONTROL/dynamic-security/v1/response", qos=1)
            time.sleep(0.05)
            client.publish("$CONTROL/dynamic-security/v1", json.dumps({"commands": commands}), qos=1)
            if not done.wait(5):
                raise RuntimeError("the dynamic-security plugin did not answer")
        finally:
            client.disconnect()
            client.loop_stop()
        errors = [r for reply in replies for r in reply.get("responses", []) if r.get("error")]
        if errors:
            raise RuntimeError(f"dynamic-security refused {commands!r}: {errors}")

    # ---- clients -------------------------------------------------------------------------

    def password_file(self, username: str) -> Path:
        """The account's own password file (what a service gets with ``--password-file``)."""
        return self.secrets_dir / f"{username}.password"

    def config(self, username: str, *, client_id: str | None = None, role: str | None = None,
               password: str | None = None, **overrides: Any) -> BusConfig:
        """A ``BusConfig`` for ``username`` on the plain listener, with ``client_id =
        username`` (the only id the broker lets the account use). Reconnects are quick
        (0.05..0.5 s) unless overridden."""
        role = role or role_of(username)
        if client_id is not None and client_id != username:
            if role_of(client_id) != role:
                raise ValueError(f"client id {client_id!r} is not an account of role {role!r}")
            self.ensure_account(client_id)
            username = client_id
        values: dict[str, Any] = dict(
            client_id=username, role=role, host=self.host, port=self.port,
            username=username, password=self.credentials.get(username, "") if password is None else password,
            reconnect_min_s=0.05, reconnect_max_s=0.5, connect_timeout_s=5.0, keepalive_s=10,
        )
        values.update(overrides)
        return BusConfig(**values)

    def tls_config(self, username: str, **overrides: Any) -> BusConfig:
        """Like ``config`` but on the TLS listener, trusting the test CA."""
        if self.tls_port is None:
            raise RuntimeError("this broker was started without tls=True")
        overrides.setdefault("tls_ca_file", str(self.certs_dir / "ca.crt"))
        return self.config(username, port=self.tls_port, **overrides)

    def raw_client(self, username: str | None, *, client_id: str | None = None, password: str | None = None,
                   on_message: Callable[..., None] | None = None) -> mqtt.Client:
        """A bare paho client (MQTT 5), connected with its loop running; ``None`` is anonymous.

        Raises ``ConnectionRefusedError`` when the broker refuses it. Call
        ``disconnect()`` and ``loop_stop()`` when done."""
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                             client_id=client_id or username or f"raw-anonymous-{next(_ids)}")
        if username is not None:
            client.username_pw_set(username, self.credentials.get(username, "") if password is None else password)
        result: dict[str, Any] = {}
        done = threading.Event()

        def on_connect(c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
            result["reason"] = reason
            done.set()

        client.on_connect = on_connect
        client.reconnect_delay_set(0.05, 0.5)  # type: ignore[arg-type]
        if on_message is not None:
            client.on_message = on_message
        client.connect(self.host, self.port, keepalive=10)
        client.loop_start()
        if not done.wait(5) or result["reason"].is_failure:
            client.disconnect()
            client.loop_stop()
            raise ConnectionRefusedError(str(result.get("reason", "no CONNACK")))
        return client


class Inbox:
    """A thread-safe handler that collects what it is called with, and waits for it."""

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._cond = threading.Condition()

    def __call__(self, item: Any) -> None:
        with self._cond:
            self._items.append(item)
            self._cond.notify_all()

    @property
    def items(self) -> list[Any]:
        with self._cond:
            return list(self._items)

    def clear(self) -> None:
        with self._cond:
            self._items.clear()

    def wait_for(self, count: int = 1, *, timeout_s: float = 5.0,
                 where: Callable[[Any], bool] | None = None) -> list[Any]:
        """Wait until ``count`` items (satisfying ``where``) arrived; return them all.

        Raises ``AssertionError`` listing what did arrive when the time runs out."""
        def matching() -> list[Any]:
            return [item for item in self._items if where is None or where(item)]

        with self._cond:
            if not self._cond.wait_for(lambda: len(matching()) >= count, timeout_s):
                raise AssertionError(f"expected {count} items within {timeout_s}s, got {self._items!r}")
            return matching()

    def stays_empty(self, seconds: float, where: Callable[[Any], bool] | None = None) -> bool:
        """True if nothing (satisfying ``where``) arrives within ``seconds``."""
        time.sleep(seconds)
        with self._cond:
            return not [item for item in self._items if where is None or where(item)]


def send_until_heard(client: Any, topic: str, message: Any, inbox: Inbox, timeout_s: float = 10.0) -> list[Any]:
    """Publish ``message`` from ``client`` again every half second until ``inbox`` holds
    something, and return what it holds: a subscriber that has just connected may still
    have its SUBSCRIBE on the way (its SUBACK is not awaited), and on a busy machine the
    broker can take another connection's PUBLISH first. Only for idempotent messages."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        client.publish(topic, message, wait=True)
        if not inbox.stays_empty(0.5):
            break
    return inbox.wait_for(1)
