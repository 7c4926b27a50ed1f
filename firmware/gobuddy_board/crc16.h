/*
 * crc16.h - CRC-16/CCITT-FALSE, the checksum of every protocol line.
 * Polynomial 0x1021, initial value 0xFFFF, bits not reflected, no final XOR.
 * Check value: crc16("123456789") == 0x29B1. Python: binascii.crc_hqx(b, 0xFFFF).
 */
#ifndef GOBUDDY_CRC16_H
#define GOBUDDY_CRC16_H

#include <stdint.h>
#include <util/crc16.h>

#define CRC16_INIT 0xFFFFu

/* Feed one byte into a running CRC. */
static inline uint16_t crc16_update(uint16_t crc, uint8_t byte) {
    return _crc_xmodem_update(crc, byte); /* MSB-first 0x1021 step */
}

/* CRC of a whole buffer. */
static inline uint16_t crc16(const char *data, uint16_t len) {
    uint16_t crc = CRC16_INIT;
    while (len--) crc = crc16_update(crc, (uint8_t)*data++);
    return crc;
}

#endif /* GOBUDDY_CRC16_H */
