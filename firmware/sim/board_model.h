/*
 * board_model.h - the simulated board around the MCU: 81 light sensors
 * behind six multiplexers, six buttons, 9 + 9 LEDs (firmware/PINMAP.md).
 * Wiring comes from gobuddy_board/board_pins.h, the firmware's own table.
 *
 * Sensors: each ADC conversion the firmware starts is answered with the
 * voltage of the sensor its select lines and ADC channel address.
 * Buttons: levels presented on the button pins (1 = pressed = pin low), set
 * directly or by a script of timed levels in simulated time.
 * LEDs: read back from the port registers (lit = output driven high) at
 * every slice boundary; reported once a state has been seen at two
 * boundaries in a row, i.e. has stood for about a millisecond, so the few
 * microseconds in which the firmware rewrites its LED ports are never seen
 * (nor would an eye see them).
 * Single-threaded; times are simulated CPU cycles since harness start.
 */
#ifndef GOBUDDY_SIM_BOARD_MODEL_H
#define GOBUDDY_SIM_BOARD_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_avr.h"
#include "board_pins.h"

#define BOARD_SCRIPT_MAX 64 /* most steps in one button script */

/* Wire the model to the MCU (IRQ hooks); all sensors 0 mV, buttons released. */
void board_init(avr_t *avr);

/* Present the button levels again: call after every MCU reset (a reset
 * clears the PIN registers, and simavr would not re-send unchanged levels). */
void board_after_reset(void);

/* Sensor voltage, 0..5000 mV, by protocol index; spare = unused mux channels. */
void board_set_sensor_mv(int index, uint16_t mv);
void board_set_spare_mv(uint16_t mv);

/* Button index for a protocol name (case-insensitive), or -1. */
int board_button(const char *name);
/* Set a level now; cancels that button's script. */
void board_set_button(int button, bool pressed);
/* Run levels[k] for durations[k] cycles each, starting at `now`; the last
 * level stays. Replaces any running script. n is 1..BOARD_SCRIPT_MAX. */
void board_script_button(int button, const bool *levels, const uint64_t *durations, int n, uint64_t now);
/* Apply script steps due at `now`; returns when the next one is due (UINT64_MAX if none). */
uint64_t board_run_scripts(uint64_t now);

/* Sample the LED pins; call at every slice boundary (about every 1 ms). */
void board_sample_leds(void);
/* The settled LED state: rows[r], cols[c] are '0'/'1' strings of
 * GB_BOARD_SIZE chars; returns the heartbeat LED level. */
int board_leds(char rows[GB_BOARD_SIZE + 1], char cols[GB_BOARD_SIZE + 1]);

#endif /* GOBUDDY_SIM_BOARD_MODEL_H */
