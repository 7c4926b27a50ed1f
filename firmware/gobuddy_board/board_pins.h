/*
 * board_pins.h - the electrical truth of the Go Learning Buddy board
 * (Arduino Mega 2560). See firmware/PINMAP.md for the Mega header labels and the
 * reasons behind each choice.
 *
 * Plain C, included by two programs:
 *   - the firmware (C++ on the AVR), which turns every signal into register
 *     accesses with GB_PORT()/GB_DDR()/GB_PIN();
 *   - the simavr harness (C on the host, firmware/sim/harness.c), which turns
 *     the same port letters and bits into simulator IRQs.
 * Keeping one table for both means the simulator cannot drift from the board.
 *
 * Signals are named by AVR port letter (a bare token: A, C, K ...) and bit.
 */
#ifndef GOBUDDY_BOARD_PINS_H
#define GOBUDDY_BOARD_PINS_H

#define GB_CAT_(a, b) a##b
#define GB_CAT(a, b) GB_CAT_(a, b)
#define GB_STR_(a) #a
#define GB_STR(a) GB_STR_(a)

/* Register of a port given its letter token, e.g. GB_PORT(C) is PORTC. */
#define GB_PORT(letter) GB_CAT(PORT, letter)
#define GB_DDR(letter) GB_CAT(DDR, letter)
#define GB_PIN(letter) GB_CAT(PIN, letter)

/* ---- Board geometry ---------------------------------------------------- */
#define GB_BOARD_SIZE 9
#define GB_SENSOR_COUNT (GB_BOARD_SIZE * GB_BOARD_SIZE) /* 81 */

/* ---- Sensor multiplexers (six CD74HC4067) ------------------------------
 * Sensor i is the protocol index: i = row * 9 + col, row 0 = top row
 * (GTP row 9), col 0 = column A. It is wired to mux GB_SENSOR_MUX(i),
 * channel GB_SENSOR_CHANNEL(i). Mux m's common pin (SIG) goes to ADC
 * channel GB_MUX_ADC_CHANNEL(m), i.e. Arduino A0..A5 = PF0..PF5.
 * Muxes 0..4 carry 16 sensors each; mux 5 carries only sensor 80 (J1) on
 * channel 0 and leaves channels 1..15 spare. (The simulator, simavr 1.6,
 * models ADC inputs 0..7 only: keep the muxes on A0..A7.) */
#define GB_MUX_COUNT 6
#define GB_MUX_CHANNELS 16
#define GB_SENSOR_MUX(i) ((i) / GB_MUX_CHANNELS)
#define GB_SENSOR_CHANNEL(i) ((i) % GB_MUX_CHANNELS)
#define GB_MUX_ADC_CHANNEL(m) (m)

/* Shared select lines S0..S3 of all six muxes: PA0..PA3 (Mega D22..D25).
 * One port so a single register write changes all four lines at once.
 * Channel ch is selected by writing ch << GB_SEL_SHIFT into the port. */
#define GB_SEL_PORT A
#define GB_SEL_SHIFT 0
#define GB_SEL_MASK (0x0F << GB_SEL_SHIFT)

/* ---- Buttons ------------------------------------------------------------
 * Momentary switches to GND, internal pull-ups on, pressed = reads 0.
 * All six on port K (Mega A8..A13 used as digital inputs) so one read of
 * PINK samples every button at the same instant.
 * X(index, NAME, bit): NAME is the protocol name of the button. */
#define GB_BUTTON_PORT K
#define GB_BUTTON_COUNT 6
#define GB_BUTTONS(X) \
    X(0, START, 0)    \
    X(1, END, 1)      \
    X(2, DONE, 2)     \
    X(3, ADVICE, 3)   \
    X(4, PASS, 4)     \
    X(5, UNDO, 5)

/* ---- Row and column LEDs -------------------------------------------------
 * Active high: pin HIGH = LED lit (directly through a resistor, or through a
 * non-inverting/ULN-style low-side driver). X(index, PORT letter, bit).
 * Row r: r = 0 is the top row (GTP row 9). Mega D30..D38. */
#define GB_ROW_LEDS(X) \
    X(0, C, 7) /* D30 */ \
    X(1, C, 6) /* D31 */ \
    X(2, C, 5) /* D32 */ \
    X(3, C, 4) /* D33 */ \
    X(4, C, 3) /* D34 */ \
    X(5, C, 2) /* D35 */ \
    X(6, C, 1) /* D36 */ \
    X(7, C, 0) /* D37 */ \
    X(8, D, 7) /* D38 */

/* Column c: c = 0 is column A, c = 8 is column J (no I). Mega D40..D48. */
#define GB_COL_LEDS(X) \
    X(0, G, 1) /* D40 */ \
    X(1, G, 0) /* D41 */ \
    X(2, L, 7) /* D42 */ \
    X(3, L, 6) /* D43 */ \
    X(4, L, 5) /* D44 */ \
    X(5, L, 4) /* D45 */ \
    X(6, L, 3) /* D46 */ \
    X(7, L, 2) /* D47 */ \
    X(8, L, 1) /* D48 */

/* Heartbeat: the Mega's on-board "L" LED, D13 = PB7. */
#define GB_HEARTBEAT_PORT B
#define GB_HEARTBEAT_BIT 7

#endif /* GOBUDDY_BOARD_PINS_H */
