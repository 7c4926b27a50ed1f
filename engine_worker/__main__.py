"""``python -m engine_worker``: run one engine worker until SIGTERM or Ctrl-C.

Arguments: see ``engine_worker.config`` (``--help``). Exit status 0 after a clean stop,
1 when the broker refuses the account or the model cannot be loaded, 2 for a bad
argument (including a missing model file).
"""

from __future__ import annotations

import logging
import os
import sys

from engine_worker.config import parse_args
from gobuddy.bus.lifecycle import stop_on_signals


def main(argv: list[str] | None = None) -> int:
    config, level = parse_args(argv)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    if config.nice:
        os.nice(config.nice)  # the dashboard and the board on this machine come first
    from engine_worker.worker import EngineWorker  # heavy imports after argument errors

    stop = stop_on_signals()
    try:
        worker = EngineWorker(config)
    except Exception as exc:  # ModelContractError, onnxruntime errors, two models of one size: say why
        logging.getLogger("engine_worker").error("cannot load the models %s: %s",
                                                 " ".join(map(str, config.models)), exc)
        return 1
    try:
        worker.run(stop)
    except ConnectionRefusedError as exc:
        logging.getLogger("engine_worker").error("%s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
