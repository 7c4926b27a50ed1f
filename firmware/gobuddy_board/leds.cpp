/* leds.cpp - see leds.h for the contract. */
#include <Arduino.h>
#include "leds.h"

struct led_pin {
    volatile uint8_t *port;
    volatile uint8_t *ddr;
    uint8_t mask;
};

#define LED_PIN(i, P, bit) {&GB_PORT(P), &GB_DDR(P), (uint8_t)(1u << (bit))},
/* Index 0..8 rows, 9..17 columns: the same numbering as leds_lit(). */
static const led_pin pins[2 * GB_BOARD_SIZE] = {GB_ROW_LEDS(LED_PIN) GB_COL_LEDS(LED_PIN)};
#define LED_COUNT (2 * GB_BOARD_SIZE)
#define ALL_LEDS ((1ul << LED_COUNT) - 1)

/* The distinct ports the LEDs use, so a pattern change is one write per
 * port (all LEDs change within a few cycles, no visible intermediate). */
#define MAX_LED_PORTS LED_COUNT /* worst case; the board uses 4 */
static volatile uint8_t *ports[MAX_LED_PORTS];
static uint8_t port_leds[MAX_LED_PORTS]; /* LED bits on that port */
static uint8_t led_port[LED_COUNT];      /* LED i -> index into ports[] */
static uint8_t nports;

enum led_mode { MODE_OFF, MODE_POINT, MODE_BLINK, MODE_PROBLEM };

static uint8_t mode;
static uint8_t points[GB_BLINK_MAX]; /* row * 9 + col */
static uint8_t npoints;
static uint32_t started_ms;
static bool restart;      /* pattern changed: take the time at next poll */
static uint32_t lit;      /* what the pins show */
static uint32_t last_ms;

static uint32_t point_mask(uint8_t p) {
    uint8_t row = p / GB_BOARD_SIZE, col = p % GB_BOARD_SIZE;
    return (1ul << row) | (1ul << (GB_BOARD_SIZE + col));
}

static void show(uint32_t want) {
    uint8_t on[MAX_LED_PORTS] = {0};
    uint32_t bit = 1;
    for (uint8_t i = 0; i < LED_COUNT; i++, bit <<= 1)
        if (want & bit) on[led_port[i]] |= pins[i].mask;
    uint8_t sreg = SREG; /* read-modify-write of shared ports: no interrupt in between */
    cli();
    for (uint8_t k = 0; k < nports; k++) *ports[k] = (uint8_t)((*ports[k] & ~port_leds[k]) | on[k]);
    SREG = sreg;
    lit = want;
}

static void set_mode(uint8_t m) {
    mode = m;
    restart = true;
}

void leds_begin(void) {
    nports = 0;
    for (uint8_t i = 0; i < LED_COUNT; i++) {
        uint8_t k = 0;
        while (k < nports && ports[k] != pins[i].port) k++;
        if (k == nports) ports[nports++] = pins[i].port;
        led_port[i] = k;
        port_leds[k] |= pins[i].mask;
        *pins[i].port &= (uint8_t)~pins[i].mask;
        *pins[i].ddr |= pins[i].mask;
    }
    lit = 0;
    npoints = 0;
    set_mode(MODE_OFF);
}

void leds_off(void) { set_mode(MODE_OFF); }

void leds_point(uint8_t row, uint8_t col) {
    if (row >= GB_BOARD_SIZE || col >= GB_BOARD_SIZE) return;
    points[0] = (uint8_t)(row * GB_BOARD_SIZE + col);
    npoints = 1;
    set_mode(MODE_POINT);
}

void leds_blink(const uint8_t *rows, const uint8_t *cols, uint8_t n) {
    if (n > GB_BLINK_MAX) n = GB_BLINK_MAX;
    npoints = 0;
    for (uint8_t k = 0; k < n; k++) {
        if (rows[k] >= GB_BOARD_SIZE || cols[k] >= GB_BOARD_SIZE) continue;
        points[npoints++] = (uint8_t)(rows[k] * GB_BOARD_SIZE + cols[k]);
    }
    set_mode(npoints ? MODE_BLINK : MODE_OFF);
}

void leds_problem(void) { set_mode(MODE_PROBLEM); }

void leds_poll(uint32_t now_ms) {
    if (restart) {
        restart = false;
        started_ms = now_ms;
    } else if (now_ms == last_ms) {
        return; /* patterns change at most once per millisecond */
    }
    last_ms = now_ms;
    uint32_t t = now_ms - started_ms;
    uint32_t want = 0;
    switch (mode) {
    case MODE_POINT:
        want = point_mask(points[0]);
        break;
    case MODE_BLINK: {
        const uint32_t slot = LEDS_BLINK_ON_MS + LEDS_BLINK_OFF_MS;
        t %= slot * npoints;
        if (t % slot < LEDS_BLINK_ON_MS) want = point_mask(points[t / slot]);
        break;
    }
    case MODE_PROBLEM:
        if (t % (2 * LEDS_PROBLEM_HALF_MS) < LEDS_PROBLEM_HALF_MS) want = ALL_LEDS;
        break;
    default:
        break;
    }
    if (want != lit) show(want);
}

uint32_t leds_lit(void) { return lit; }

const char *leds_mode_name(void) {
    static const char *const names[] = {"OFF", "POINT", "BLINK", "PROBLEM"};
    return names[mode];
}
