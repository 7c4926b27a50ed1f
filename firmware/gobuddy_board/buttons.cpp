/* buttons.cpp - see buttons.h for the contract. */
#include <Arduino.h>
#include "buttons.h"
#include "protocol.h"

#define BUTTON_NAME(i, NAME, bit) #NAME,
static const char *const names[GB_BUTTON_COUNT] = {GB_BUTTONS(BUTTON_NAME)};

#define BUTTON_BIT(i, NAME, bit) (uint8_t)(1u << (bit)),
static const uint8_t masks[GB_BUTTON_COUNT] = {GB_BUTTONS(BUTTON_BIT)};

static uint8_t stable;              /* bit i set = button i pressed (debounced) */
static uint8_t pending;             /* bit i set = raw differs from stable */
static uint32_t since[GB_BUTTON_COUNT]; /* when the difference was first seen */

void buttons_begin(void) {
    uint8_t all = 0;
    for (uint8_t i = 0; i < GB_BUTTON_COUNT; i++) all |= masks[i];
    GB_DDR(GB_BUTTON_PORT) &= (uint8_t)~all; /* inputs */
    GB_PORT(GB_BUTTON_PORT) |= all;          /* pull-ups on */
    stable = 0;
    pending = 0;
}

void buttons_poll(uint32_t now_ms, button_handler on_change) {
    uint8_t pins = GB_PIN(GB_BUTTON_PORT); /* one sample of every button */
    for (uint8_t i = 0; i < GB_BUTTON_COUNT; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        bool raw_pressed = !(pins & masks[i]); /* active low */
        bool is_pressed = stable & bit;
        if (raw_pressed == is_pressed) {
            pending &= (uint8_t)~bit; /* glitch over: restart the wait */
            continue;
        }
        if (!(pending & bit)) {
            pending |= bit;
            since[i] = now_ms;
        } else if (now_ms - since[i] >= GB_DEBOUNCE_MS) {
            pending &= (uint8_t)~bit;
            stable ^= bit;
            on_change(i, raw_pressed);
        }
    }
}

const char *button_name(uint8_t i) { return i < GB_BUTTON_COUNT ? names[i] : "?"; }
