"""The game as events: the wire events and their journal, the offline queue, adopting a game after a restart."""
