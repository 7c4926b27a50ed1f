/*
 * buttons.h - the six front-panel buttons, debounced.
 *
 * buttons_poll() samples all buttons at once (one read of the button port)
 * on every call. A button's debounced state changes only after its raw level
 * has differed from the debounced state in every sample for GB_DEBOUNCE_MS;
 * any sample back at the old level restarts the wait. So a bounce or glitch
 * shorter than GB_DEBOUNCE_MS produces no event, and a press produces
 * exactly one "pressed" change about GB_DEBOUNCE_MS after contact settles.
 *
 * At boot every button is taken as released: a button held at power-up is
 * reported as pressed once it has been stable for GB_DEBOUNCE_MS.
 * Call buttons_poll() at least every few milliseconds.
 */
#ifndef GOBUDDY_BUTTONS_H
#define GOBUDDY_BUTTONS_H

#include <stdint.h>
#include "board_pins.h"

typedef void (*button_handler)(uint8_t button, bool pressed);

/* Inputs with pull-ups; all buttons released. */
void buttons_begin(void);

/* Sample now (now_ms = millis()); calls on_change once per debounced change. */
void buttons_poll(uint32_t now_ms, button_handler on_change);

/* Protocol name of button i (0..GB_BUTTON_COUNT-1), e.g. "START". */
const char *button_name(uint8_t i);

#endif /* GOBUDDY_BUTTONS_H */
