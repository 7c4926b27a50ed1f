/*
 * gobuddy_board.ino - Go Learning Buddy board firmware (Arduino Mega 2560).
 *
 * Reads 81 light sensors through six CD74HC4067 multiplexers, debounces six
 * buttons, drives 9 row + 9 column LEDs, and speaks the line protocol in
 * firmware/PROTOCOL.md over Serial (USB) at 115200 8N1.
 *
 * Structure: a cooperative main loop; every module's poll function returns
 * quickly (the longest step is one FRAME line formatted into the output
 * ring, well under a millisecond), so sensors, buttons, LEDs and the serial
 * link are all serviced continuously. Interrupts: the Arduino core's timer
 * and UART ones, and the 1 kHz button sampling (buttons.h), which must not
 * depend on how long a loop pass takes.
 *   scanner  - multiplexer + ADC scan state machine (scanner.h)
 *   stream   - FRAME lines and CAL averaging (stream.h)
 *   buttons  - debounce, BUTTON events (buttons.h)
 *   leds     - row/column LED patterns (leds.h)
 *   commands - host line parser and replies (commands.h)
 *   txq      - output line queue with checksums (txq.h)
 * Pins: board_pins.h and firmware/PINMAP.md.
 *
 * A watchdog (1 s) resets the board if the loop ever stops; the host sees
 * a fresh HELLO and FRAME sequence numbers restarting at 0.
 */
#include <Arduino.h>
#include <avr/wdt.h>

#include "board_pins.h"
#include "buttons.h"
#include "commands.h"
#include "leds.h"
#include "protocol.h"
#include "scanner.h"
#include "stream.h"
#include "txq.h"

/* After a watchdog reset the watchdog stays armed with its shortest timeout;
 * switch it off before the C runtime and setup() run (avr-libc recipe). */
extern "C" void gobuddy_wdt_off(void) __attribute__((naked, used, section(".init3")));
extern "C" void gobuddy_wdt_off(void) {
    MCUSR = 0;
    wdt_disable();
}

static uint32_t button_seq; /* BUTTON events sent since boot */

/* "BUTTON <seq> <NAME> DOWN|UP <ms>" */
static void on_button(uint8_t button, bool pressed, uint32_t ms) {
    txq_line_begin();
    txq_put_str("BUTTON ");
    txq_put_u32(button_seq++);
    txq_put_char(' ');
    txq_put_str(button_name(button));
    txq_put_str(pressed ? " DOWN " : " UP ");
    txq_put_u32(ms);
    txq_line_end(false);
}

#define HEARTBEAT_HALF_MS 500

/* On-board LED toggles every HEARTBEAT_HALF_MS while the loop runs. */
static void heartbeat(uint32_t now_ms) {
    static uint32_t last;
    if (now_ms - last < HEARTBEAT_HALF_MS) return;
    last = now_ms;
    GB_PIN(GB_HEARTBEAT_PORT) = _BV(GB_HEARTBEAT_BIT); /* writing PINx toggles */
}

void setup() {
    GB_DDR(GB_HEARTBEAT_PORT) |= _BV(GB_HEARTBEAT_BIT);
    leds_begin();
    buttons_begin();
    txq_begin();
    commands_begin();
    stream_begin();
    Serial.begin(GB_BAUD);
    scanner_begin();
    commands_send_hello();
    wdt_enable(WDTO_1S);
}

void loop() {
    wdt_reset();
    uint32_t now = millis();
    commands_poll();
    if (scanner_poll()) stream_on_scan(scanner_last());
    buttons_poll(on_button);
    leds_poll(now);
    stream_poll(now);
    heartbeat(now);
    txq_pump();
}
