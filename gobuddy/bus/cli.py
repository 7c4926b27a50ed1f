"""The broker options every service's command line shares, and the ``BusConfig`` they make.

    parser = argparse.ArgumentParser()
    add_broker_arguments(parser)
    args = parser.parse_args()
    config = bus_config_from_args(args, role="engine", client_id="engine-pc1-0")

Options: ``--broker-host``, ``--broker-port``, ``--username``, ``--password`` or
``--credentials FILE`` (the JSON written by ``broker/make_users.py``: ``{user:
password}``; the password of ``--username`` is taken from it), ``--tls-ca``,
``--tls-cert``, ``--tls-key``. Called only from ``__main__`` modules: the file named on
the command line is the only thing read.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gobuddy.bus.config import BusConfig


def add_broker_arguments(parser: argparse.ArgumentParser, default_username: str | None = None) -> None:
    """Add the shared broker options to ``parser`` (in an argument group)."""
    group = parser.add_argument_group("broker")
    group.add_argument("--broker-host", default="127.0.0.1", help="MQTT broker host (default 127.0.0.1)")
    group.add_argument("--broker-port", type=int, default=1883, help="MQTT broker port (default 1883)")
    group.add_argument("--username", default=default_username, help="broker account")
    group.add_argument("--password", default=None, help="broker password (prefer --credentials)")
    group.add_argument("--credentials", type=Path, default=None,
                       help="JSON file {user: password} from broker/make_users.py")
    group.add_argument("--tls-ca", default=None, help="CA certificate: connect with TLS")
    group.add_argument("--tls-cert", default=None, help="client certificate (with --tls-key)")
    group.add_argument("--tls-key", default=None, help="client private key")


def password_for(args: argparse.Namespace) -> str | None:
    """The password from ``--password`` or, failing that, from ``--credentials``."""
    if args.password is not None or args.credentials is None or args.username is None:
        return args.password
    try:
        table = json.loads(Path(args.credentials).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"--credentials {args.credentials}: cannot read it ({exc})") from None
    if args.username not in table:
        raise SystemExit(f"--credentials {args.credentials}: no password for user {args.username!r}")
    return table[args.username]


def bus_config_from_args(args: argparse.Namespace, role: str, client_id: str, **overrides) -> BusConfig:
    """A ``BusConfig`` from the shared options; ``overrides`` set any other field."""
    return BusConfig(
        client_id=client_id, role=role, host=args.broker_host, port=args.broker_port,
        username=args.username, password=password_for(args), tls_ca_file=args.tls_ca,
        tls_cert_file=args.tls_cert, tls_key_file=args.tls_key, **overrides)
