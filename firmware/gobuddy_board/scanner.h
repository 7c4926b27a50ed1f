/*
 * scanner.h - reads the 81 light sensors through the six multiplexers.
 *
 * The scan is a state machine advanced by scanner_poll() from the main loop:
 * each call does at most one step (read a finished ADC conversion, switch the
 * select lines, wait the settle time, start the next conversion), so it never
 * blocks for more than SCAN_SETTLE_US. A full scan is 81 conversions plus one
 * discarded conversion per multiplexer (after the ADC input changes), about
 * 10 ms at the 125 kHz ADC clock: roughly 100 scans per second.
 *
 * Order inside a scan: mux 0 channels 0..15, mux 1 ..., i.e. protocol index
 * order (board_pins.h maps index -> mux, channel).
 */
#ifndef GOBUDDY_SCANNER_H
#define GOBUDDY_SCANNER_H

#include <stdint.h>
#include "board_pins.h"

/* Wait after changing the select lines before sampling. The mux node
 * (about 50-100 pF) behind a <= 10 kOhm divider settles to < 1 LSB in a few
 * microseconds; 10 us leaves margin. */
#define SCAN_SETTLE_US 10

/* Configure select pins, ADC (AVcc reference, prescaler 128, digital input
 * buffers off on A0..A5) and start the first conversion. */
void scanner_begin(void);

/* Advance the scan. Returns true exactly when this call completed a scan;
 * the readings are then in scanner_last() until the next completed scan. */
bool scanner_poll(void);

/* Last complete scan: GB_SENSOR_COUNT readings 0..1023 in protocol order.
 * All zero before the first scan completes. */
const uint16_t *scanner_last(void);

/* Duration of the last complete scan in microseconds, and scans since boot. */
uint32_t scanner_last_us(void);
uint32_t scanner_count(void);

#endif /* GOBUDDY_SCANNER_H */
