/*
 * stream.h - FRAME streaming and CAL averaging (PROTOCOL.md, "FRAME", "CAL").
 *
 * Every complete scan is handed to stream_on_scan(). Frames are due every
 * 1000/rate ms; a due frame carries, per sensor, the rounded mean of the
 * scans completed since the previous frame (at most the first
 * STREAM_AVG_MAX of them), so each reading is smoothed over the whole frame
 * period. A frame is sent only when at least one new scan exists and the
 * link has room (txq droppable); otherwise it is skipped and counted, never
 * queued late. Sequence numbers count FRAME lines actually sent, so a gap
 * seen by the host means a line lost or corrupted on the link.
 *
 * Calibration averages the next n complete scans and sends one CALDATA line;
 * frames keep flowing meanwhile.
 */
#ifndef GOBUDDY_STREAM_H
#define GOBUDDY_STREAM_H

#include <stdint.h>

#define STREAM_AVG_MAX 64 /* 64 * 1023 fits the 16-bit sums */

void stream_begin(void);

/* Accumulate one complete scan (GB_SENSOR_COUNT readings). May send CALDATA. */
void stream_on_scan(const uint16_t *scan);

/* Send a FRAME if one is due at now_ms (millis()). */
void stream_poll(uint32_t now_ms);

/* 0 stops FRAME lines; 1..GB_RATE_MAX frames per second. Caller validates. */
void stream_set_rate(uint8_t hz);
uint8_t stream_rate(void);

/* Start averaging the next n (1..GB_CAL_MAX) scans. False if one is running. */
bool stream_start_cal(uint8_t n);

uint32_t stream_frames_sent(void);
uint32_t stream_frames_skipped(void);

#endif /* GOBUDDY_STREAM_H */
