"""What the agent tells the broker about its board: the retained status and sensor health.

``BoardStatus`` is the part of ``edge.agent.EdgeAgent`` that builds the board's retained
presence status (``status``: firmware, the serial link's counters and its problem in
words, the calibration's step, the sensor health of ``edge.sensing.health``, the outbox,
the engine's state, the game) and follows the sensor health frame by frame
(``_follow_health``: a change of faulty sensors or of the calibration mismatch is
logged and published at once; a mismatch also blinks all LEDs). It needs the agent's
``link``, ``cal``, ``health``, ``queue``, ``counts``, ``record``, ``log``,
``_engine_state``, ``teacher``, ``_count_status``, ``_status_at`` and ``_show_leds``.
"""

from __future__ import annotations

from typing import Any

from edge.sensing.classify import Frame, Sighting
from edge.sensing.health import SensorHealth

_NO_HEALTH = dict.fromkeys(("health_levels", "health_baseline", "health_reading", "health_noise", "health_drift",
                            "health_margin", "health_transients", "health_unclear", "ambient_alarm",
                            "calibration_mismatch", "sensor_faults"))


class BoardStatus:
    """The status and health half of the agent (see the module docstring)."""

    def status(self) -> dict[str, Any]:
        """Small facts for the retained presence message (scalars only)."""
        hello, stats, problem = self.link.hello, self.link.stats, self.link.problem
        return {
            "firmware": hello.firmware if hello else "disconnected", "serial_connected": self.link.connected.is_set(),
            "serial_rejected": self.link.rejected, "serial_crc_errors": stats["crc_errors"],
            "serial_framing_errors": stats["framing_errors"], "serial_frames_lost": stats["frames_lost"],
            "serial_out_of_range": stats["out_of_range"], "serial_reconnects": stats["disconnects"],
            "link_problem": problem[0] if problem else None, "link_message": problem[1][:255] if problem else None,
            **self.cal.status(), **(self.health.details() if self.health is not None else _NO_HEALTH),
            "queue_pending": len(self.queue.pending()), "stale_answers": self.counts["stale_answers"],
            "unstored_events": self.queue.unstored_count(), "engine": self._engine_state,
            "game_id": self.record.game_id if self.record else None,
            "move_number": self.record.game.move_number if self.record else 0,
            "teaching": self.teacher.level, "count": self._count_status(),
            "player_black": self.players.names.get("B"), "player_white": self.players.names.get("W"),
        }

    def _follow_health(self, frame: Frame, sighting: Sighting) -> None:
        """Sensor health from this frame; a change of the faulty sensors or of the
        calibration mismatch is published at once and logged (the mismatch also on the
        LEDs)."""
        cal, classifier = self.calibration, self.classifier
        assert cal is not None and classifier is not None
        if self.health is None or self.health.calibration is not cal:
            self.health = SensorHealth(cal)
        was, faults = self.health.mismatch, self.health.faults_message()
        self.health.update(frame.readings, sighting, classifier)
        if self.health.faults_message() != faults:
            now_faults = self.health.faults_message()
            if now_faults:
                self.log.warning("faulty sensors, read around: %s", now_faults)
            else:
                self.log.info("no faulty sensor any more")
            self._status_at = 0.0
        if self.health.mismatch != was:
            if self.health.mismatch:
                self.log.warning("calibration mismatch: %s", self.health.mismatch_message())
            else:
                self.log.info("the board matches its calibration again")
            self._status_at = 0.0
            self._show_leds()
