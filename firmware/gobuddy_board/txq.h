/*
 * txq.h - everything the firmware sends goes through here.
 *
 * Lines are built one at a time in a line buffer (line_begin .. line_end),
 * sealed with "*CCCC\n" (CRC-16 of the body, see crc16.h) and copied whole
 * into a 1 KiB ring that txq_pump() drains into the UART without ever
 * blocking. A line is never split or interleaved with another.
 *
 * Two kinds of lines:
 *   - droppable (FRAME): queued only while the backlog is short, so frames
 *     are skipped rather than delayed when the link is full;
 *   - must-send (replies, BUTTON, HELLO, CALDATA): if the ring is full the
 *     call waits (draining the UART) until there is room. That wait is
 *     bounded by the ring size at link speed (< 0.1 s) and only happens when
 *     a host floods commands.
 *
 * Single-threaded: call only from the main loop, never from an ISR.
 */
#ifndef GOBUDDY_TXQ_H
#define GOBUDDY_TXQ_H

#include <stdint.h>

/* Longest line body, bytes: a FRAME is at most 265 + "*CCCC\n". */
#define TXQ_LINE_MAX 288
#define TXQ_RING_SIZE 1024
/* A droppable line is queued only if the ring then holds at most this many bytes. */
#define TXQ_DROPPABLE_BACKLOG 600

void txq_begin(void);

/* Start a new line; discards any unfinished one. */
void txq_line_begin(void);
/* Append to the current line; text past TXQ_LINE_MAX is cut (never overflows). */
void txq_put_char(char c);
void txq_put_str(const char *s);
void txq_put_u32(uint32_t v);
/* Three uppercase hex digits, v in 0..0xFFF. */
void txq_put_hex3(uint16_t v);
/* Seal and queue the current line. Returns false only for a droppable line
 * that was dropped because the link is busy. */
bool txq_line_end(bool droppable);

/* Convenience: one whole must-send line from a string body. */
void txq_send(const char *body);

/* Move queued bytes into the UART while it has room; never blocks. */
void txq_pump(void);

/* Bytes waiting in the ring. */
uint16_t txq_backlog(void);

#endif /* GOBUDDY_TXQ_H */
