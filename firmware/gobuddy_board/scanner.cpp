/* scanner.cpp - see scanner.h for the contract. */
#include <Arduino.h>
#include <string.h>
#include "scanner.h"

static uint16_t work[GB_SENSOR_COUNT];   /* scan in progress */
static uint16_t result[GB_SENSOR_COUNT]; /* last complete scan */
static uint8_t cursor;                    /* sensor being converted */
static uint8_t adc_channel;              /* ADC input currently selected */
static bool discard;                     /* running conversion is a throw-away */
static uint32_t scan_started_us;
static uint32_t last_us;
static uint32_t count;

static void start_conversion(void) { ADCSRA |= _BV(ADSC); }

/* Route sensor i to the ADC and start its conversion. */
static void select_sensor(uint8_t i) {
    uint8_t ch = GB_MUX_ADC_CHANNEL(GB_SENSOR_MUX(i));
    if (ch != adc_channel) {
        adc_channel = ch;
        /* AVcc reference, right-adjusted, single-ended channel 0..15. */
        ADMUX = _BV(REFS0) | (ch & 0x07);
        if (ch & 0x08)
            ADCSRB |= _BV(MUX5);
        else
            ADCSRB &= (uint8_t)~_BV(MUX5);
        discard = true; /* first sample after an input switch is not trusted */
    }
    uint8_t sel = (uint8_t)(GB_SENSOR_CHANNEL(i) << GB_SEL_SHIFT);
    GB_PORT(GB_SEL_PORT) = (GB_PORT(GB_SEL_PORT) & (uint8_t)~GB_SEL_MASK) | sel;
    delayMicroseconds(SCAN_SETTLE_US);
    start_conversion();
}

void scanner_begin(void) {
    GB_DDR(GB_SEL_PORT) |= GB_SEL_MASK;
    for (uint8_t m = 0; m < GB_MUX_COUNT; m++) { /* mux inputs are analog only */
        uint8_t ch = GB_MUX_ADC_CHANNEL(m);
        if (ch < 8)
            DIDR0 |= (uint8_t)_BV(ch);
        else
            DIDR2 |= (uint8_t)_BV(ch - 8);
    }
    /* ADC on, prescaler 128: 16 MHz / 128 = 125 kHz, inside the 50-200 kHz
     * range for full 10-bit accuracy; 13 ADC clocks = 104 us per conversion. */
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
    memset(result, 0, sizeof result);
    count = 0;
    last_us = 0;
    cursor = 0;
    adc_channel = 0xFF;
    scan_started_us = micros();
    select_sensor(0);
}

bool scanner_poll(void) {
    if (ADCSRA & _BV(ADSC)) return false; /* conversion still running */
    uint16_t value = ADC;
    if (discard) {
        discard = false;
        start_conversion();
        return false;
    }
    work[cursor++] = value;
    bool done = false;
    if (cursor == GB_SENSOR_COUNT) {
        memcpy(result, work, sizeof result);
        uint32_t now = micros();
        last_us = now - scan_started_us;
        scan_started_us = now;
        count++;
        cursor = 0;
        done = true;
    }
    select_sensor(cursor);
    return done;
}

const uint16_t *scanner_last(void) { return result; }
uint32_t scanner_last_us(void) { return last_us; }
uint32_t scanner_count(void) { return count; }
