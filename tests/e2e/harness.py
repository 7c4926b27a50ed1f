"""Running the dashboard for real: ``streamlit run dashboard/app.py`` on loopback, and
Debian's Chromium driven by Playwright (never a downloaded browser).

    with StreamlitServer(dashboard_args(db_url, broker)) as server, chromium() as browser:
        page = browser.new_page()
        page.goto(server.url("live?board=board-1"))

``StreamlitServer`` picks a free port, starts the server with the flags the project
uses (headless, loopback, no usage stats, no file watcher; ``app``: another page for a
test of one part), waits for
``/_stcore/health`` and loads the app once (the first load imports everything), and
stops it with SIGTERM. Its output goes to ``log_path``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

from tests.free_ports import free_port

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "dashboard" / "app.py"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = REPO / "artifacts" / "screenshots"


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is not installed (Debian package chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "the python package playwright is not installed"
    return None


def real_services_available() -> dict[str, bool]:
    """Whether the real engine worker and recorder commands exist (else ``stand_ins``)."""
    return {"engine_worker": (REPO / "engine_worker" / "__main__.py").exists(),
            "recorder": (REPO / "dashboard" / "recorder.py").exists()}


class ServiceProcess:
    """A service run as ``python -m <module> <args>`` from the repository, stopped with
    SIGTERM (its clean stop publishes its offline status). Output goes to ``log_path``."""

    def __init__(self, module: str, args: list[str], log_path: Path) -> None:
        self.command = [sys.executable, "-m", module, *args]
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "ServiceProcess":
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)

    def check_alive(self) -> None:
        if self.process is None or self.process.poll() is not None:
            tail = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
            raise RuntimeError(f"{' '.join(self.command[:3])} exited early:\n{tail}")


def broker_args(broker: Any, user: str) -> list[str]:
    """The shared broker options (``gobuddy.bus.cli``) for the account ``user`` of a test
    broker (made if need be), with its own password file as a deployment gives it."""
    broker.ensure_account(user)
    return ["--broker-host", broker.host, "--broker-port", str(broker.port), "--username", user,
            "--password-file", str(broker.password_file(user))]


def engine_worker(broker: Any, tmp: Path) -> Any:
    """The real engine worker (a small random-weight model, 32 visits at most) when
    ``python -m engine_worker`` exists, else the stand-in; a context manager."""
    from tests.e2e.stand_ins import StandInWorker

    if not real_services_available()["engine_worker"]:
        return StandInWorker(broker.config("engine-1"))
    from tests.tiny_model import build_tiny_model

    model = build_tiny_model(size=9, blocks=1, channels=8, seed=5, name="e2e-tiny").save(tmp / "tiny.onnx")
    return ServiceProcess("engine_worker", [*broker_args(broker, "engine-e2e-1"), "--model", str(model),
                                            "--visits", "32", "--status-interval", "1"],
                          tmp / "engine_worker.log")


def recorder(broker: Any, store: Any, url: str, tmp: Path) -> Any:
    """The real recorder on ``url`` when it exists, else the stand-in writing to ``store``."""
    from tests.e2e.stand_ins import StandInRecorder

    if not real_services_available()["recorder"]:
        return StandInRecorder(broker.config("recorder"), store)
    return ServiceProcess("dashboard.recorder", [*broker_args(broker, "recorder-e2e"), "--db", url],
                          tmp / "recorder.log")


def wait_online(config: object, roles: dict[str, int], processes: list[ServiceProcess] = (),  # type: ignore[assignment]
                timeout_s: float = 60.0) -> None:
    """Wait until the broker holds an online status for at least ``roles[role]`` clients
    of each role (read with ``config``, a ``BusConfig`` of a reading account); fail at
    once, with its output, when one of ``processes`` exits meanwhile."""
    from gobuddy.bus import topics
    from gobuddy.bus.client import BusClient

    online: dict[tuple[str, str], bool] = {}
    client = BusClient(config)  # type: ignore[arg-type]
    client.subscribe(topics.status_filter(), lambda r: online.__setitem__(
        (r.message.role, r.message.client_id), r.message.state == "online"))
    client.start()
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            counts = {role: sum(v for (r, _), v in online.items() if r == role) for role in roles}
            if all(counts[role] >= n for role, n in roles.items()):
                return
            for process in processes:
                process.check_alive()
            time.sleep(0.05)
        raise TimeoutError(f"not online within {timeout_s:.0f} s: wanted {roles}, saw {online}")
    finally:
        client.stop()


class StreamlitServer:
    """One ``streamlit run dashboard/app.py`` process (see the module docstring)."""

    def __init__(self, args: list[str], *, port: int | None = None, log_path: Path | None = None,
                 app: Path = APP) -> None:
        self.args = list(args)
        self.app = app
        self.port = port or free_port()
        self.log_path = log_path or Path(os.devnull)
        self.process: subprocess.Popen | None = None
        self._log = None

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def start(self, timeout_s: float = 90.0) -> "StreamlitServer":
        command = [sys.executable, "-m", "streamlit", "run", str(self.app), "--server.headless", "true",
                   "--server.address", "127.0.0.1", "--server.port", str(self.port),
                   "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                   "--server.runOnSave", "false", "--", *self.args]
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(command, cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.url("_stcore/health"), timeout=2) as reply:
                    if reply.read().strip() == b"ok":
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"streamlit did not answer /_stcore/health within {timeout_s:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "StreamlitServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium (Debian's) under Playwright's sync API."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def wait_for_app(page: object, timeout_ms: int = 30_000) -> None:
    """Wait until the Streamlit app has rendered its first page (a title is shown)."""
    page.wait_for_selector("h1", timeout=timeout_ms)  # type: ignore[attr-defined]


def wait_idle(page: object, timeout_ms: int = 30_000) -> None:
    """Wait until the app's current script run has finished (not for pages whose live
    fragment keeps running)."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',  # type: ignore[attr-defined]
                           timeout=timeout_ms)


def screenshot(page: object, name: str) -> Path:
    """Save a full-page screenshot under ``artifacts/screenshots/`` (gitignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path
