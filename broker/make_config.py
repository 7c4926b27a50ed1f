"""Render ``broker/mosquitto.conf.template`` into a ``mosquitto.conf``.

    python broker/make_config.py --out var/broker/mosquitto.conf \
        --data-dir var/broker/data --dynsec var/broker/dynamic-security.json \
        [--port 1883] [--tls-port 8883 --tls-bind 192.168.1.10 --certs-dir broker/certs] \
        [--require-client-cert] [--log-file var/broker/mosquitto.log] [--run-as mosquitto]

Paths are written absolute (Mosquitto resolves relative ones against its working
directory). Accounts and ACLs come from the dynamic-security plugin's file written by
``broker/make_users.py`` (``--dynsec``); the plugin itself is found in the usual places
of Debian, Alpine and the official image, or named with ``--dynsec-plugin``.

The plain listener serves loopback only (``--bind`` refuses any other address): the LAN
sees only TLS. With ``--tls-port`` a second listener speaks MQTT over TLS with the
certificates made by ``broker/make_certs.sh`` (``ca.crt``, ``server.crt``,
``server.key`` in ``--certs-dir``); clients there log in with their password, or, with
``--require-client-cert``, with a certificate signed by the CA whose common name IS the
account (``use_identity_as_username``: a password sent beside it is ignored, so a
board's certificate cannot log in as the engine).

Started as root, Mosquitto switches to ``--run-as`` (default ``mosquitto``), which must
be able to write ``--data-dir`` and the log; ``--run-as root`` keeps root (test setups).
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from dataclasses import dataclass
from pathlib import Path
from string import Template

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "mosquitto.conf.template"
DYNSEC_PLUGINS = (  # where distributions put the dynamic-security plugin
    "/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so",
    "/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so",
    "/usr/lib/arm-linux-gnueabihf/mosquitto_dynamic_security.so",
    "/usr/lib/mosquitto_dynamic_security.so",
    "/usr/local/lib/mosquitto_dynamic_security.so",
)


def find_dynsec_plugin() -> Path:
    """The dynamic-security plugin of this machine's Mosquitto; ``FileNotFoundError`` if none."""
    for candidate in DYNSEC_PLUGINS:
        if Path(candidate).is_file():
            return Path(candidate)
    raise FileNotFoundError("mosquitto_dynamic_security.so not found (looked in "
                            f"{', '.join(DYNSEC_PLUGINS)}); name it with --dynsec-plugin")


def is_loopback(address: str) -> bool:
    """True for loopback addresses and ``localhost``."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


@dataclass
class BrokerSettings:
    """Everything the template needs; ``tls_port`` None means no TLS listener.

    ``__post_init__`` raises ``ValueError`` for a plain listener beyond loopback."""

    data_dir: Path
    dynsec_file: Path
    dynsec_plugin: Path | None = None  # None: find_dynsec_plugin()
    port: int = 1883
    bind_address: str = "127.0.0.1"
    tls_port: int | None = None
    tls_bind_address: str = "0.0.0.0"
    certs_dir: Path = HERE / "certs"
    require_client_cert: bool = False
    log_file: Path | None = None  # None: stderr
    run_as: str | None = "mosquitto"

    def __post_init__(self) -> None:
        if not is_loopback(self.bind_address):
            raise ValueError(f"the plain listener may serve loopback only, not {self.bind_address!r}: "
                             "give other hosts the TLS listener (--tls-port, --tls-bind)")


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
            # The certificate's common name is the account and its client id (the
            # plugin's client id binding is not consulted for certificate logins).
            *(["use_identity_as_username true", "use_username_as_clientid true"]
              if settings.require_client_cert else []),
            "",
        ])
    return Template(TEMPLATE.read_text()).substitute(
        dynsec_plugin=settings.dynsec_plugin or find_dynsec_plugin(),
        dynsec_file=settings.dynsec_file.resolve(),
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
    parser.add_argument("--dynsec", type=Path, required=True, help="the file make_users.py wrote")
    parser.add_argument("--dynsec-plugin", type=Path, default=None, help="mosquitto_dynamic_security.so")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--bind", default="127.0.0.1", help="loopback address of the plain listener")
    parser.add_argument("--tls-port", type=int, default=None)
    parser.add_argument("--tls-bind", default="0.0.0.0")
    parser.add_argument("--certs-dir", type=Path, default=HERE / "certs")
    parser.add_argument("--require-client-cert", action="store_true")
    parser.add_argument("--log-file", type=Path, default=None)
    parser.add_argument("--run-as", default="mosquitto")
    args = parser.parse_args(argv)
    try:
        settings = BrokerSettings(
            data_dir=args.data_dir, dynsec_file=args.dynsec, dynsec_plugin=args.dynsec_plugin, port=args.port,
            bind_address=args.bind, tls_port=args.tls_port, tls_bind_address=args.tls_bind,
            certs_dir=args.certs_dir, require_client_cert=args.require_client_cert, log_file=args.log_file,
            run_as=args.run_as or None)
        text = render(settings)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    args.data_dir.mkdir(parents=True, exist_ok=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
