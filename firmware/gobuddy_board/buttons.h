/*
 * buttons.h - the six front-panel buttons, debounced.
 *
 * Sampling does not depend on the main loop: the Timer0 compare-A interrupt
 * (Timer0 is the Arduino millis() timer; its overflow interrupt is left
 * alone) reads all buttons at once, one read of the button port, every
 * 1.024 ms. A button's debounced state changes only after BUTTON_STABLE_TICKS
 * consecutive samples (about GB_DEBOUNCE_MS) at the new level; any sample at
 * the old level restarts the count. So a bounce or glitch shorter than the
 * debounce time produces no event, a bounce during a press is absorbed into
 * that press, and a press produces exactly one "pressed" change about
 * GB_DEBOUNCE_MS after the contact settles (one "released" likewise).
 *
 * The interrupt queues changes with their millis() time; buttons_poll()
 * hands them to the main loop in order. The queue holds BUTTON_QUEUE events
 * (seconds of button activity); if the loop ever fell that far behind, newer
 * events would be dropped, not reordered.
 *
 * At boot every button is taken as released: a button held at power-up is
 * reported as pressed once it has been stable for the debounce time.
 */
#ifndef GOBUDDY_BUTTONS_H
#define GOBUDDY_BUTTONS_H

#include <stdint.h>
#include "board_pins.h"
#include "protocol.h"

/* 25 samples at 1.024 ms = 25.6 ms, the protocol's GB_DEBOUNCE_MS. */
#define BUTTON_STABLE_TICKS GB_DEBOUNCE_MS
#define BUTTON_QUEUE 16

typedef void (*button_handler)(uint8_t button, bool pressed, uint32_t ms);

/* Inputs with pull-ups, all released, sampling interrupt on. Call after
 * the Arduino core's init() (i.e. in setup()), which starts Timer0. */
void buttons_begin(void);

/* Call on_change once per queued debounced change, oldest first; ms is the
 * millis() time of the change. */
void buttons_poll(button_handler on_change);

/* Protocol name of button i (0..GB_BUTTON_COUNT-1), e.g. "START". */
const char *button_name(uint8_t i);

#endif /* GOBUDDY_BUTTONS_H */
