"""Render ``broker/mosquitto.conf.template`` into a ``mosquitto.conf``.

    python broker/make_config.py --out var/broker/mosquitto.conf \
        --data-dir var/broker/data --password-file var/broker/passwd \
        [--port 1883 --bind 127.0.0.1] [--tls-port 8883 --certs-dir broker/certs] \
        [--log-file var/broker/mosquitto.log] [--run-as mosquitto]

Paths are written absolute (Mosquitto resolves relative ones against its working
directory). The ACL is ``broker/acl`` unless ``--acl-file`` says otherwise. With
``--tls-port`` a second listener speaks MQTT over TLS with the certificates made by
``broker/make_certs.sh`` (``ca.crt``, ``server.crt``, ``server.key`` in ``--certs-dir``);
clients then authenticate with their password as on the plain listener, and
``--require-client-cert`` also demands a certificate signed by the CA.

Started as root, Mosquitto switches to ``--run-as`` (default ``mosquitto``), which must
be able to write ``--data-dir`` and the log; ``--run-as root`` keeps root (test setups).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "mosquitto.conf.template"
ACL = HERE / "acl"


@dataclass
class BrokerSettings:
    """Everything the template needs; ``tls_port`` None means no TLS listener."""

    data_dir: Path
    password_file: Path
    acl_file: Path = ACL
    port: int = 1883
    bind_address: str = "127.0.0.1"
    tls_port: int | None = None
    tls_bind_address: str = "0.0.0.0"
    certs_dir: Path = HERE / "certs"
    require_client_cert: bool = False
    log_file: Path | None = None  # None: stderr
    run_as: str | None = "mosquitto"


def render(settings: BrokerSettings) -> str:
    """The configuration text for ``settings``."""
    tls_block = ""
    if settings.tls_port is not None:
        certs = settings.certs_dir.resolve()
        tls_block = "\n".join([
            "",
            "# MQTT over TLS; clients verify the server with the deployment's CA.",
            f"listener {settings.tls_port} {settings.tls_bind_address}",
            "protocol mqtt",
            f"cafile {certs / 'ca.crt'}",
            f"certfile {certs / 'server.crt'}",
            f"keyfile {certs / 'server.key'}",
            "tls_version tlsv1.2",
            f"require_certificate {'true' if settings.require_client_cert else 'false'}",
            "",
        ])
    return Template(TEMPLATE.read_text()).substitute(
        password_file=settings.password_file.resolve(),
        acl_file=settings.acl_file.resolve(),
        user_line=f"user {settings.run_as}" if settings.run_as else "",
        data_dir=settings.data_dir.resolve(),
        log_dest=f"file {settings.log_file.resolve()}" if settings.log_file else "stderr",
        port=settings.port,
        bind_address=settings.bind_address,
        tls_block=tls_block,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--password-file", type=Path, required=True)
    parser.add_argument("--acl-file", type=Path, default=ACL)
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--bind", default="127.0.0.1", help="address of the plain listener (a LAN address to serve other hosts)")
    parser.add_argument("--tls-port", type=int, default=None)
    parser.add_argument("--tls-bind", default="0.0.0.0")
    parser.add_argument("--certs-dir", type=Path, default=HERE / "certs")
    parser.add_argument("--require-client-cert", action="store_true")
    parser.add_argument("--log-file", type=Path, default=None)
    parser.add_argument("--run-as", default="mosquitto")
    args = parser.parse_args(argv)
    settings = BrokerSettings(
        data_dir=args.data_dir, password_file=args.password_file, acl_file=args.acl_file, port=args.port,
        bind_address=args.bind, tls_port=args.tls_port, tls_bind_address=args.tls_bind, certs_dir=args.certs_dir,
        require_client_cert=args.require_client_cert, log_file=args.log_file, run_as=args.run_as or None,
    )
    args.data_dir.mkdir(parents=True, exist_ok=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(settings))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
