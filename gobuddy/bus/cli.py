"""The broker options every service's command line shares, and the ``BusConfig`` they make.

    parser = argparse.ArgumentParser()
    add_broker_arguments(parser)
    args = parser.parse_args()
    config = bus_config_from_args(args, role="engine")   # client id = --username

Options: ``--broker-host``, ``--broker-port``, ``--username``, ``--password-file FILE``
(the service's own ``<account>.password`` written by ``broker/make_users.py``; one line)
or ``--password`` (visible to every local user in the process list: tests only),
``--tls-ca``, ``--tls-cert``, ``--tls-key``. The client id is the username (the broker
binds them), or the certificate's common name when a client certificate is given
without a username. Called only from ``__main__`` modules: the file named on the command
line is the only thing read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gobuddy.bus.config import BusConfig


def add_broker_arguments(parser: argparse.ArgumentParser, default_username: str | None = None) -> None:
    """Add the shared broker options to ``parser`` (in an argument group)."""
    group = parser.add_argument_group("broker")
    group.add_argument("--broker-host", default="127.0.0.1", help="MQTT broker host (default 127.0.0.1)")
    group.add_argument("--broker-port", type=int, default=1883, help="MQTT broker port (default 1883)")
    group.add_argument("--username", default=default_username, help="broker account")
    group.add_argument("--password", default=None, help="broker password (prefer --password-file)")
    group.add_argument("--password-file", type=Path, default=None,
                       help="this account's password file from broker/make_users.py")
    group.add_argument("--tls-ca", default=None, help="CA certificate: connect with TLS")
    group.add_argument("--tls-cert", default=None, help="client certificate (with --tls-key)")
    group.add_argument("--tls-key", default=None, help="client private key")


def password_for(args: argparse.Namespace) -> str | None:
    """The password from ``--password`` or, failing that, from ``--password-file``."""
    if args.password is not None or args.password_file is None:
        return args.password
    try:
        text = Path(args.password_file).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"--password-file {args.password_file}: cannot read it ({exc})") from None
    password = text.strip()
    if not password or "\n" in password or len(password) > 1024:
        raise SystemExit(f"--password-file {args.password_file}: expected one line holding the password")
    return password


def bus_config_from_args(args: argparse.Namespace, role: str, client_id: str | None = None,
                         **overrides) -> BusConfig:
    """A ``BusConfig`` from the shared options; ``client_id`` defaults to the username
    (``client_id`` is needed only for certificate logins without one); ``overrides``
    set any other field."""
    client_id = client_id or args.username
    if client_id is None:
        raise SystemExit("--username is required (the account, which is also the client id)")
    return BusConfig(
        client_id=client_id, role=role, host=args.broker_host, port=args.broker_port,
        username=args.username, password=password_for(args), tls_ca_file=args.tls_ca,
        tls_cert_file=args.tls_cert, tls_key_file=args.tls_key, **overrides)
