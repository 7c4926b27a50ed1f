/*
 * leds.h - the row of 9 and column of 9 LEDs that point at an intersection.
 *
 * Exactly one pattern is active; setting a pattern replaces the previous one
 * and restarts its timing:
 *   OFF      all dark.
 *   POINT    steady: row LED and column LED of one point (the engine's move).
 *   BLINK    1..GB_BLINK_MAX points (stones to remove), shown one at a time
 *            in the given order: row+column lit LEDS_BLINK_ON_MS, dark
 *            LEDS_BLINK_OFF_MS, then the next point, cycling forever.
 *   PROBLEM  all 18 LEDs blink together, LEDS_PROBLEM_HALF_MS on / off.
 * Points are (row, col) with row 0 = top row (GTP row 9), col 0 = column A;
 * callers validate them (out-of-range values are ignored, never written).
 */
#ifndef GOBUDDY_LEDS_H
#define GOBUDDY_LEDS_H

#include <stdint.h>
#include "board_pins.h"
#include "protocol.h"

#define LEDS_BLINK_ON_MS 400
#define LEDS_BLINK_OFF_MS 200
#define LEDS_PROBLEM_HALF_MS 250

/* Outputs, all dark. */
void leds_begin(void);

void leds_off(void);
void leds_point(uint8_t row, uint8_t col);
/* rows[k], cols[k] for k < n; n is clamped to 1..GB_BLINK_MAX (n = 0 means OFF). */
void leds_blink(const uint8_t *rows, const uint8_t *cols, uint8_t n);
void leds_problem(void);

/* Update the pins for time now_ms (millis()). Cheap when nothing changes. */
void leds_poll(uint32_t now_ms);

/* LEDs lit right now: bit r (0..8) = row r, bit 9 + c = column c. */
uint32_t leds_lit(void);

/* "OFF", "POINT", "BLINK" or "PROBLEM". */
const char *leds_mode_name(void);

#endif /* GOBUDDY_LEDS_H */
