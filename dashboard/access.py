"""Who may do what on the dashboard, and whether it asks anyone to sign in at all.

| action         | what it is                                          | least role |
|----------------|-----------------------------------------------------|------------|
| ``view``       | Live, Games, Replay and System pages, stored analyses | viewer   |
| ``play``       | play on the Play page (moves, pass, undo, resign, hint) | player |
| ``analyse``    | ask the engine from Replay (analyse, try a move)    | player     |
| ``import``     | import SGF files                                    | player     |
| ``download``   | download a game as SGF                              | player     |
| ``rename``     | rename a game                                       | admin      |
| ``delete``     | delete a game                                       | admin      |
| ``manage_users`` | the Users page: add, change and remove accounts   | admin      |

Roles are ordered, ``viewer < player < admin``; each may do what the ones below may.
Accounts are managed on the Users page (admins) or with ``python -m dashboard.users``
on the server (whoever may write the database).

Sign-in (``--auth``): ``on``; ``off``; ``auto`` (the default) is on unless Streamlit
serves on a loopback address only (``127.0.0.0/8``, ``::1``, ``localhost``). An unset
address means every interface, so it counts as beyond loopback. ``off`` beyond
loopback is refused (``AuthRefused``): the dashboard never runs open to a network.

Pure: no Streamlit, no database. Not checked here: whether a name resolves to
loopback (only the literal ``localhost`` is taken as such).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from dashboard.store.users import ROLES

AUTH_MODES = ("auto", "on", "off")
LEAST_ROLE = {"view": "viewer", "play": "player", "analyse": "player", "import": "player", "download": "player",
              "rename": "admin", "delete": "admin", "manage_users": "admin", "recalibrate": "admin",
              "teach": "player"}
WORDS = {"view": "see the pages", "play": "play", "analyse": "ask the engine", "import": "import SGF files",
         "download": "download games", "rename": "rename games", "delete": "delete games",
         "manage_users": "manage users", "recalibrate": "recalibrate boards",
         "teach": "set a board's teacher"}


class AuthRefused(ValueError):
    """A sign-in setting that would leave the dashboard open to the network."""


def allowed(role: str | None, action: str) -> bool:
    """Whether ``role`` may do ``action``; an unknown role or action may do nothing."""
    if role not in ROLES or action not in LEAST_ROLE:
        return False
    return ROLES.index(role) >= ROLES.index(LEAST_ROLE[action])


def is_loopback(address: str | None) -> bool:
    """Whether a server bound to ``address`` is reachable from this machine only."""
    if not address:
        return False
    text = address.strip().strip("[]").lower()
    if text == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def sign_in_required(mode: str, address: str | None) -> bool:
    """Whether pages ask for a sign-in under ``--auth mode`` when Streamlit serves on
    ``address`` (``server.address``); ``AuthRefused`` for ``off`` beyond loopback."""
    if mode not in AUTH_MODES:
        raise ValueError(f"--auth: {mode!r} is not one of {', '.join(AUTH_MODES)}")
    if mode == "on":
        return True
    if is_loopback(address):
        return False
    if mode == "off":
        where = address or "every interface (server.address is not set)"
        raise AuthRefused(f"--auth off is only allowed on a loopback address, but the dashboard serves on {where}. "
                          "Use --auth on (and create users with python -m dashboard.users), or serve on "
                          "127.0.0.1 (--server.address 127.0.0.1).")
    return True


@dataclass(frozen=True)
class Identity:
    """Who the current page run acts for: ``name`` None when sign-in is off (then the
    role is ``admin``: the loopback dashboard does everything, as before sign-in existed)."""

    name: str | None
    role: str
    signed_in: bool

    def can(self, action: str) -> bool:
        return allowed(self.role, action)

    def refusal(self, action: str) -> str | None:
        """None when allowed; otherwise the sentence that tells the user why not."""
        if self.can(action):
            return None
        need = LEAST_ROLE.get(action, "admin")
        who = f"{self.name} ({self.role})" if self.name else f"this session ({self.role})"
        return f"Only a user with the {need} role can {WORDS.get(action, action)}; you are signed in as {who}."
