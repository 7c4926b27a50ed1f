"""The broker tests use the same fixtures as the bus tests (one Mosquitto per module)."""

from tests.bus.conftest import bus_client, mqtt_broker  # noqa: F401  (pytest fixtures)
