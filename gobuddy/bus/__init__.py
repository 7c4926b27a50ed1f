"""What may cross the broker: the topic tree, typed messages, and the one MQTT client.

    from gobuddy.bus import BusClient, BusConfig, topics
    from gobuddy.bus.messages import MovePlayed, EngineRequest, ...

Modules: ``topics`` (the tree; build every topic there), ``validation`` (JSON Schemas in
``schemas/``), ``messages`` (one typed dataclass per kind), ``config`` and ``client``
(``BusClient``), with ``inbox``, ``subscriptions``, ``delivery``, ``requests`` and
``reporting`` as its parts. See ``schemas/README.md`` for the topic table.
"""

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.config import BusConfig
from gobuddy.bus.delivery import Delivery, PublishRejected
from gobuddy.bus.inbox import Received
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.topics import TopicError
from gobuddy.bus.validation import MessageError, validate

__all__ = [
    "BusClient", "BusConfig", "Delivery", "EngineRequestFailed", "MessageError", "PublishRejected", "Received",
    "TopicError", "topics", "validate",
]
