/* buttons.cpp - see buttons.h for the contract. */
#include <Arduino.h>
#include "buttons.h"

#define BUTTON_NAME(i, NAME, bit) #NAME,
static const char *const names[GB_BUTTON_COUNT] = {GB_BUTTONS(BUTTON_NAME)};

#define BUTTON_BIT(i, NAME, bit) (uint8_t)(1u << (bit)),
static const uint8_t masks[GB_BUTTON_COUNT] = {GB_BUTTONS(BUTTON_BIT)};

struct button_event {
    uint8_t code; /* button << 1 | pressed */
    uint32_t ms;
};

/* Written only by the ISR. */
static uint8_t stable;                  /* bit i set = button i pressed (debounced) */
static uint8_t count[GB_BUTTON_COUNT];  /* consecutive samples differing from stable */
/* Single producer (ISR) / single consumer (loop) ring; 8-bit indices are atomic. */
static button_event queue[BUTTON_QUEUE];
static volatile uint8_t q_head, q_tail;

ISR(TIMER0_COMPA_vect) {
    uint8_t pins = GB_PIN(GB_BUTTON_PORT); /* one sample of every button */
    for (uint8_t i = 0; i < GB_BUTTON_COUNT; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        bool raw_pressed = !(pins & masks[i]); /* active low */
        if (raw_pressed == (bool)(stable & bit)) {
            count[i] = 0; /* back at the old level: restart the wait */
            continue;
        }
        if (++count[i] < BUTTON_STABLE_TICKS) continue;
        count[i] = 0;
        stable ^= bit;
        uint8_t next = (uint8_t)((q_head + 1) % BUTTON_QUEUE);
        if (next != q_tail) { /* full: drop (the loop is stalled; the watchdog will act) */
            queue[q_head].code = (uint8_t)(i << 1 | (raw_pressed ? 1 : 0));
            queue[q_head].ms = millis();
            q_head = next;
        }
    }
}

void buttons_begin(void) {
    uint8_t all = 0;
    for (uint8_t i = 0; i < GB_BUTTON_COUNT; i++) all |= masks[i];
    GB_DDR(GB_BUTTON_PORT) &= (uint8_t)~all; /* inputs */
    GB_PORT(GB_BUTTON_PORT) |= all;          /* pull-ups on */
    uint8_t sreg = SREG;
    cli();
    stable = 0;
    for (uint8_t i = 0; i < GB_BUTTON_COUNT; i++) count[i] = 0;
    q_head = q_tail = 0;
    OCR0A = 0x80;        /* mid-way between millis() overflows */
    TIFR0 = _BV(OCF0A);  /* no stale request */
    TIMSK0 |= _BV(OCIE0A);
    SREG = sreg;
}

void buttons_poll(button_handler on_change) {
    while (q_tail != q_head) {
        button_event e = queue[q_tail]; /* the ISR never writes this slot now */
        q_tail = (uint8_t)((q_tail + 1) % BUTTON_QUEUE);
        on_change((uint8_t)(e.code >> 1), e.code & 1, e.ms);
    }
}

const char *button_name(uint8_t i) { return i < GB_BUTTON_COUNT ? names[i] : "?"; }
