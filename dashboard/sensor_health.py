"""A board's sensor health, read from its retained status, for the System page.

The edge agent packs it into its status ``details`` (``edge/sensing/health.py`` writes
them; the format is the contract, so it is restated here): per point, fixed-width
uppercase hex digits, row-major from the top-left intersection A9 —
``health_baseline`` and ``health_reading`` 3 digits (counts), ``health_noise`` 2
(counts), ``health_drift`` 2 (percent + 128), ``health_margin`` 2 (percent of the gap
between levels), ``health_transients`` and ``health_unclear`` 2 (counts, capped at 255);
``health_levels`` ``key=value`` words (``black``, ``white``, ``stone``, ``ambient``,
``low``, ``high``, ``bursts``; ``none`` for a level not measured). Alarms, as text, only
while they hold: ``link_problem`` with ``link_message`` (``board_silent``,
``port_busy``, a HELLO mismatch, ...), ``calibration_mismatch``, ``ambient_alarm``,
``sensor_faults``.

``board_health`` decodes one board's details into a ``BoardHealth`` (``None`` when the
board sends no health, or sends it malformed: a field of the wrong length or with a
non-hex digit drops the whole view, never half of it). ``point_rows`` is the table,
weakest margin first; ``margin_figure`` the 9x9 heat map. Not checked here: that the
details are the edge's (the bus validated them against the status schema only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import plotly.graph_objects as go

from gobuddy.go.coords import GTP_COLUMNS, to_gtp

_FIELDS = {"baseline": 3, "reading": 3, "noise": 2, "drift": 2, "margin": 2, "transients": 2, "unclear": 2}
LINK_WORDS = {"board_silent": "the board sends no frames", "port_busy": "its serial port is held by another process",
              "protocol_mismatch": "it speaks another protocol", "size_mismatch": "it is a board of another size",
              "sensor_mismatch": "it announces another number of sensors", "adc_mismatch": "its ADC range is unusable",
              "cannot_open": "its serial port cannot be opened", "no_hello": "the device does not answer HELLO",
              "disconnected": "the serial link is down"}
RECALIBRATE = ("To recalibrate: clear the board, then hold TURN DONE for 2 s. The board guides the steps with its "
               "LEDs (with colour sensing: black stones on row 7, TURN DONE, white stones on row 3, TURN DONE, "
               "then take them off).")


@dataclass(frozen=True)
class BoardHealth:
    """One board's sensor health: per point (flat, row-major from A9) arrays, the levels
    (ratios of the empty reading; ``None`` when not measured) and the alarms in words."""

    size: int
    baseline: np.ndarray
    reading: np.ndarray
    noise: np.ndarray
    drift_pct: np.ndarray
    margin_pct: np.ndarray
    transients: np.ndarray
    unclear: np.ndarray
    black: float | None
    white: float | None
    stone: float | None
    ambient: float | None
    low: float | None
    high: float | None
    bursts: int
    alarms: tuple[str, ...] = field(default=())

    def vertex(self, point: int) -> str:
        return to_gtp(point, self.size)


def _decode(text: Any, digits: int) -> np.ndarray | None:
    if not isinstance(text, str) or len(text) % digits:
        return None
    try:
        return np.array([int(text[i:i + digits], 16) for i in range(0, len(text), digits)], dtype=float)
    except ValueError:
        return None


def _levels(text: Any) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for word in (text or "").split() if isinstance(text, str) else []:
        key, _, value = word.partition("=")
        try:
            out[key] = None if value == "none" else float(value)
        except ValueError:
            out[key] = None
    return out


def alarms(details: Mapping[str, Any]) -> tuple[str, ...]:
    """The board's alarms in words (link, calibration, light, sensors), most urgent first."""
    found = []
    problem = details.get("link_problem")
    if problem:
        words = LINK_WORDS.get(problem, problem)
        found.append(f"{problem}: {words}" + (f" ({details['link_message']})" if details.get("link_message") else ""))
    for key in ("calibration_mismatch", "sensor_faults", "ambient_alarm"):
        if details.get(key):
            found.append(str(details[key]))
    return tuple(found)


def board_health(details: Mapping[str, Any]) -> BoardHealth | None:
    """Decode the health in ``details`` (see the module docstring)."""
    values = {name: _decode(details.get(f"health_{name}"), digits) for name, digits in _FIELDS.items()}
    if any(v is None for v in values.values()):
        return None
    n = len(values["baseline"])  # type: ignore[arg-type]
    size = math.isqrt(n)
    if size * size != n or size < 2 or any(len(v) != n for v in values.values()):  # type: ignore[arg-type]
        return None
    lv = _levels(details.get("health_levels"))
    return BoardHealth(size=size, baseline=values["baseline"], reading=values["reading"],  # type: ignore[arg-type]
                       noise=values["noise"], drift_pct=values["drift"] - 128,  # type: ignore[operator]
                       margin_pct=values["margin"], transients=values["transients"],  # type: ignore[arg-type]
                       unclear=values["unclear"], black=lv.get("black"), white=lv.get("white"),  # type: ignore[arg-type]
                       stone=lv.get("stone"), ambient=lv.get("ambient"), low=lv.get("low"), high=lv.get("high"),
                       bursts=int(lv.get("bursts") or 0), alarms=alarms(details))


def point_rows(health: BoardHealth, limit: int | None = None) -> list[dict[str, Any]]:
    """One row per point, weakest margin first (ties: most unclear readings, then most
    transients): the calibrated levels in counts, the reading, noise, drift, margin and
    the counts."""
    order = sorted(range(len(health.baseline)),
                   key=lambda p: (health.margin_pct[p], -health.unclear[p], -health.transients[p], p))
    rows = []
    for p in order[:limit]:
        base = health.baseline[p]
        rows.append({
            "point": health.vertex(p), "empty": int(base),
            "black": None if health.black is None else round(base * health.black),
            "white": None if health.white is None else round(base * health.white),
            "reading": int(health.reading[p]), "noise": int(health.noise[p]),
            "drift %": int(health.drift_pct[p]), "margin %": int(health.margin_pct[p]),
            "transients": int(health.transients[p]), "unclear": int(health.unclear[p]),
        })
    return rows


def margin_figure(health: BoardHealth) -> go.Figure:
    """The board as a heat map of margins (row 9 at the top; red: weakest), with every
    figure of a point in its hover text."""
    size = health.size
    grid = health.margin_pct.reshape(size, size)
    text = [[_hover(health, r * size + c) for c in range(size)] for r in range(size)]
    fig = go.Figure(go.Heatmap(
        z=grid, x=list(GTP_COLUMNS[:size]), y=[str(size - r) for r in range(size)], text=text, hoverinfo="text",
        zmin=0, zmax=100, colorscale="RdYlGn", colorbar={"title": "margin %"},
        texttemplate="%{z:.0f}", xgap=2, ygap=2))
    fig.update_yaxes(autorange="reversed", type="category", scaleanchor="x")
    fig.update_xaxes(type="category", side="top")
    fig.update_layout(margin={"l": 10, "r": 10, "t": 30, "b": 10}, height=360)
    return fig


def _hover(health: BoardHealth, p: int) -> str:
    return (f"{health.vertex(p)}: margin {health.margin_pct[p]:.0f}%, reading {health.reading[p]:.0f} "
            f"(empty {health.baseline[p]:.0f}), noise {health.noise[p]:.0f}, drift {health.drift_pct[p]:+.0f}%, "
            f"transients {health.transients[p]:.0f}, unclear {health.unclear[p]:.0f}")


def light_words(health: BoardHealth) -> str:
    """The light against its limits, in words."""
    if health.ambient is None:
        return "light: unknown"
    text = f"light {health.ambient:.2f}x calibration"
    if health.low is not None and health.high is not None:
        text += f" (readable from {health.low:.2f}x to {health.high:.2f}x)"
    return text
