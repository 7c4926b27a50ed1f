"""Configuration of a bus client: one explicit dataclass, built by each service's ``__main__``.

Nothing here reads the environment or files. ``BusConfig`` checks itself on construction
(``ValueError`` with the field named) so a bad deployment fails at start, not at the
first message.

Identity rules the broker enforces (see ``broker/make_users.py``): every running client
has an account of its own and connects with ``client_id == username`` (the broker
refuses any other client id, so no account can end another's session):

- a board's edge agent connects with ``role="board"`` and ``client_id == username ==
  board id`` (``board-<name>``);
- every other service uses its own account: ``engine-<n>``, ``recorder``,
  ``dashboard``, ``observer[-<name>]``. A client logging in with a TLS certificate sends
  no username; its certificate's common name is its account and client id.
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.bus.topics import ROLES, TopicError, check_client_id, is_physical_board_id

READ_ONLY_ROLES = frozenset({"observer"})


@dataclass(frozen=True)
class BusConfig:
    """How one service connects to the broker.

    persistent_session: connect with clean_start=False EVERY time (first connect
    included) and a Session Expiry Interval of session_expiry_s, so the broker keeps the
    subscriptions and queues QoS 1 messages while the client is away, across broker
    restarts too. Use it for everything that must not lose messages (edge agent,
    recorder); leave it off for stateless clients (engine workers, dashboards).

    presence: publish the retained birth/will status; forced off for read-only roles.

    reconnect_min_s / reconnect_max_s: the capped exponential backoff between reconnect
    attempts (doubling from min to max; reset by a successful connect).

    request_silence_s: how long an engine request may go without any word from the
    workers (an engine_progress, a partial or final answer) before it is sent again.
    """

    client_id: str
    role: str
    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls_ca_file: str | None = None
    tls_cert_file: str | None = None
    tls_key_file: str | None = None
    tls_insecure: bool = False  # skip the server hostname check (test setups only)
    keepalive_s: int = 30
    persistent_session: bool = False
    session_expiry_s: int = 7 * 24 * 3600
    reconnect_min_s: float = 0.5
    reconnect_max_s: float = 5.0
    connect_timeout_s: float = 10.0
    request_silence_s: float = 1.5
    version: str = "0.1.0"
    presence: bool = True
    max_payload_bytes: int = 256 * 1024
    errors_per_s: float = 5.0
    dispatch_queue: int = 10_000

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role: {self.role!r} is not one of {', '.join(ROLES)}")
        try:
            check_client_id(self.client_id)
        except TopicError as exc:
            raise ValueError(f"client_id: {exc}") from None
        if self.role == "board" and not is_physical_board_id(self.client_id):
            raise ValueError(f"client_id: a board connects with its board id (board-<name>), got {self.client_id!r}")
        if self.username is not None and self.username != self.client_id:
            raise ValueError(f"client_id: the broker binds client ids to accounts, so it must equal the username "
                             f"{self.username!r}, got {self.client_id!r}")
        if not 0 < self.port < 65536:
            raise ValueError(f"port: {self.port} is not a TCP port")
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError("tls_cert_file and tls_key_file go together")
        if not 0 < self.reconnect_min_s <= self.reconnect_max_s:
            raise ValueError("reconnect_min_s must be > 0 and <= reconnect_max_s")
        if not 0.05 <= self.request_silence_s <= 600:
            raise ValueError("request_silence_s must be 0.05..600")
        if self.keepalive_s < 5:
            raise ValueError("keepalive_s must be at least 5")
        if self.persistent_session and self.session_expiry_s <= 0:
            raise ValueError("session_expiry_s must be > 0 for a persistent session")

    @property
    def read_only(self) -> bool:
        """True for roles that publish nothing (no presence, no error reports)."""
        return self.role in READ_ONLY_ROLES

    @property
    def publishes_presence(self) -> bool:
        return self.presence and not self.read_only

    @property
    def uses_tls(self) -> bool:
        return self.tls_ca_file is not None
