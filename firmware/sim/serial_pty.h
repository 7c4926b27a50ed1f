/*
 * serial_pty.h - the board's USB serial port (UART0) as a pseudo-terminal.
 *
 * Bytes the firmware transmits go to the pty while a host has it open and
 * are dropped otherwise (a real link nobody listens to loses them too).
 * Bytes the host writes are fed into the UART receiver while the firmware
 * has it enabled and simavr signals room (XON); simavr then delivers them
 * at the UART's byte rate. A host opening the pty is reported to the caller,
 * which resets the MCU like a Mega's DTR auto-reset.
 * Single-threaded.
 */
#ifndef GOBUDDY_SIM_SERIAL_PTY_H
#define GOBUDDY_SIM_SERIAL_PTY_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_avr.h"

/* Create the pty (raw mode), optionally symlink link_path to it, hook UART0.
 * Exits the process if no pty can be had. */
void serial_init(avr_t *avr, const char *link_path);
/* Remove the symlink, if any. */
void serial_cleanup(void);

const char *serial_pty_name(void);
/* The pty's fd to poll while a host has it open, and the events to ask for.
 * While no host has it open, poll() would report POLLHUP at once: leave it
 * out and probe it with serial_service() instead. */
int serial_fd(void);
short serial_poll_events(void);
bool serial_host_open(void);

/* Act on poll() revents for the pty (0: nothing happened): notice a host
 * opening or closing it, read host bytes, write firmware bytes.
 * Returns true when a host has just opened it. */
bool serial_service(short revents);

/* While muted, firmware output is dropped and host input is held back
 * (between a host's open and the reset it causes). */
void serial_set_muted(bool muted);

/* Feed held host bytes into the UART as far as it takes them. */
void serial_feed(void);

/* The MCU was reset: the UART's receive FIFO is empty again. */
void serial_after_reset(void);

struct serial_counts {
    uint64_t tx, rx, dropped; /* bytes firmware->host, host->firmware, lost */
};
struct serial_counts serial_counts(void);

#endif /* GOBUDDY_SIM_SERIAL_PTY_H */
