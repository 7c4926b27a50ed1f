/*
 * protocol.h - constants of the serial line protocol (firmware/PROTOCOL.md).
 * Changing any of these changes the protocol: bump GB_PROTO_VERSION and the
 * document together.
 */
#ifndef GOBUDDY_PROTOCOL_H
#define GOBUDDY_PROTOCOL_H

#define GB_PROTO_VERSION 1
#define GB_FW_VERSION "1.0.0"
#define GB_PRODUCT "GOBUDDY"

#define GB_BAUD 115200UL

/* Longest host line accepted, in bytes, not counting the '\r' / '\n'. */
#define GB_LINE_MAX 64
/* Most whitespace-separated tokens in one host line. */
#define GB_TOKENS_MAX 20

/* FRAME lines per second: default at boot and the accepted range of RATE. */
#define GB_RATE_DEFAULT 25
#define GB_RATE_MAX 30

/* CAL <n>: number of scans averaged, 1..GB_CAL_MAX. */
#define GB_CAL_MAX 64

/* LED BLINK accepts 1..GB_BLINK_MAX points. */
#define GB_BLINK_MAX 16

/* A button level must be stable this many 1.024 ms samples (~ms) before it is reported. */
#define GB_DEBOUNCE_MS 25

/* Longest PING token echoed back. */
#define GB_TOKEN_MAX 16

#endif /* GOBUDDY_PROTOCOL_H */
