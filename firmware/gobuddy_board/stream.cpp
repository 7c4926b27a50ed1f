/* stream.cpp - see stream.h for the contract. */
#include <Arduino.h>
#include <string.h>
#include "stream.h"
#include "board_pins.h"
#include "protocol.h"
#include "txq.h"

static uint16_t frame_sum[GB_SENSOR_COUNT];
static uint8_t frame_n;
static uint16_t cal_sum[GB_SENSOR_COUNT];
static uint8_t cal_n, cal_want; /* cal_want == 0: no calibration running */

static uint8_t rate;
static uint32_t next_due;  /* millis() of the next frame */
static uint16_t frac;      /* sub-millisecond part of the period, in 1/rate ms */
static bool restart;       /* rate changed: schedule from the next poll */
static uint32_t seq;
static uint32_t skipped;

static void put_means(const uint16_t *sum, uint8_t n) {
    for (uint8_t i = 0; i < GB_SENSOR_COUNT; i++)
        txq_put_hex3((uint16_t)((sum[i] + n / 2) / n));
}

void stream_begin(void) {
    memset(frame_sum, 0, sizeof frame_sum);
    frame_n = 0;
    cal_want = cal_n = 0;
    seq = skipped = 0;
    stream_set_rate(GB_RATE_DEFAULT);
}

void stream_on_scan(const uint16_t *scan) {
    if (frame_n < STREAM_AVG_MAX) {
        for (uint8_t i = 0; i < GB_SENSOR_COUNT; i++) frame_sum[i] += scan[i];
        frame_n++;
    }
    if (cal_want) {
        for (uint8_t i = 0; i < GB_SENSOR_COUNT; i++) cal_sum[i] += scan[i];
        if (++cal_n == cal_want) {
            txq_line_begin();
            txq_put_str("CALDATA ");
            txq_put_u32(cal_n);
            txq_put_char(' ');
            put_means(cal_sum, cal_n);
            txq_line_end(false);
            cal_want = 0;
        }
    }
}

static void advance_due(void) {
    next_due += 1000u / rate;
    frac += 1000u % rate;
    if (frac >= rate) {
        frac -= rate;
        next_due++;
    }
}

void stream_poll(uint32_t now_ms) {
    if (!rate) return;
    if (restart) {
        restart = false;
        next_due = now_ms;
        frac = 0;
    }
    if ((int32_t)(now_ms - next_due) < 0) return; /* not due yet */
    if (!frame_n) return;                        /* no new scan yet: wait for one */

    txq_line_begin();
    txq_put_str("FRAME ");
    txq_put_u32(seq);
    txq_put_char(' ');
    txq_put_u32(now_ms);
    txq_put_char(' ');
    put_means(frame_sum, frame_n);
    if (txq_line_end(true))
        seq++;
    else
        skipped++;
    memset(frame_sum, 0, sizeof frame_sum);
    frame_n = 0;

    advance_due();
    if ((int32_t)(now_ms - next_due) > (int32_t)(1000u / rate)) {
        next_due = now_ms; /* fell far behind (long stall): resynchronise */
        frac = 0;
    }
}

void stream_set_rate(uint8_t hz) {
    rate = hz > GB_RATE_MAX ? GB_RATE_MAX : hz;
    restart = true;
}

uint8_t stream_rate(void) { return rate; }

bool stream_start_cal(uint8_t n) {
    if (cal_want) return false;
    if (n < 1) n = 1;
    if (n > GB_CAL_MAX) n = GB_CAL_MAX;
    memset(cal_sum, 0, sizeof cal_sum);
    cal_n = 0;
    cal_want = n;
    return true;
}

uint32_t stream_frames_sent(void) { return seq; }
uint32_t stream_frames_skipped(void) { return skipped; }
