/* txq.cpp - see txq.h for the contract. */
#include <Arduino.h>
#include "txq.h"
#include "crc16.h"

static char line[TXQ_LINE_MAX + 7]; /* body + "*CCCC\n" */
static uint16_t line_len;

static char ring[TXQ_RING_SIZE];
static uint16_t head; /* next write */
static uint16_t tail; /* next read */
static uint16_t used;

void txq_begin(void) {
    head = tail = used = 0;
    line_len = 0;
}

void txq_line_begin(void) { line_len = 0; }

void txq_put_char(char c) {
    if (line_len < TXQ_LINE_MAX) line[line_len++] = c;
}

void txq_put_str(const char *s) {
    while (*s) txq_put_char(*s++);
}

void txq_put_u32(uint32_t v) {
    char digits[10];
    uint8_t n = 0;
    do {
        digits[n++] = (char)('0' + (v % 10));
        v /= 10;
    } while (v);
    while (n) txq_put_char(digits[--n]);
}

static char hex_digit(uint8_t v) { return (char)(v < 10 ? '0' + v : 'A' + v - 10); }

void txq_put_hex3(uint16_t v) {
    txq_put_char(hex_digit((v >> 8) & 0xF));
    txq_put_char(hex_digit((v >> 4) & 0xF));
    txq_put_char(hex_digit(v & 0xF));
}

uint16_t txq_backlog(void) { return used; }

void txq_pump(void) {
    int room = Serial.availableForWrite();
    while (used && room-- > 0) {
        Serial.write((uint8_t)ring[tail]);
        tail = (tail + 1) % TXQ_RING_SIZE;
        used--;
    }
}

bool txq_line_end(bool droppable) {
    uint16_t crc = crc16(line, line_len);
    uint16_t n = line_len;
    line[n++] = '*';
    line[n++] = hex_digit(crc >> 12);
    line[n++] = hex_digit((crc >> 8) & 0xF);
    line[n++] = hex_digit((crc >> 4) & 0xF);
    line[n++] = hex_digit(crc & 0xF);
    line[n++] = '\n';

    if (droppable) {
        if (used + n > TXQ_DROPPABLE_BACKLOG) return false;
    } else {
        while (TXQ_RING_SIZE - used < n) txq_pump(); /* bounded: the UART drains */
    }
    for (uint16_t i = 0; i < n; i++) {
        ring[head] = line[i];
        head = (head + 1) % TXQ_RING_SIZE;
    }
    used += n;
    line_len = 0;
    return true;
}

void txq_send(const char *body) {
    txq_line_begin();
    txq_put_str(body);
    txq_line_end(false);
}
