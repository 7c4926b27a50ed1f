/* commands.cpp - see commands.h for the contract. */
#include <Arduino.h>
#include <string.h>
#include "commands.h"
#include "board_pins.h"
#include "buttons.h"
#include "crc16.h"
#include "leds.h"
#include "protocol.h"
#include "scanner.h"
#include "stream.h"
#include "txq.h"

/* ---- line assembly ------------------------------------------------------ */

static char buf[GB_LINE_MAX + 1];
static uint8_t len;
static bool too_long, bad_char;
static uint32_t rx_errors;  /* TOO_LONG, BAD_CHAR, BAD_CRC */
static uint32_t cmd_errors; /* UNKNOWN, BAD_ARG, BUSY */

/* ---- replies ------------------------------------------------------------ */

/* Append host-supplied text, at most max bytes, '*' made harmless. */
static void put_echo(const char *s, uint8_t max) {
    while (*s && max--) {
        char c = *s++;
        txq_put_char(c == '*' ? '?' : c);
    }
}

static void reply_err(const char *code, const char *reason, const char *echo) {
    txq_line_begin();
    txq_put_str("ERR ");
    txq_put_str(code);
    txq_put_char(' ');
    txq_put_str(reason);
    if (echo) put_echo(echo, GB_TOKEN_MAX);
    txq_line_end(false);
}

static void bad_arg(const char *reason, const char *echo = 0) {
    cmd_errors++;
    reply_err("BAD_ARG", reason, echo);
}

static void reply_ok(const char *cmd, const char *arg) {
    txq_line_begin();
    txq_put_str("OK ");
    txq_put_str(cmd);
    if (arg) {
        txq_put_char(' ');
        txq_put_str(arg);
    }
    txq_line_end(false);
}

static void reply_ok_u32(const char *cmd, uint32_t v) {
    txq_line_begin();
    txq_put_str("OK ");
    txq_put_str(cmd);
    txq_put_char(' ');
    txq_put_u32(v);
    txq_line_end(false);
}

void commands_send_hello(void) {
    txq_line_begin();
    txq_put_str("HELLO " GB_PRODUCT " proto=");
    txq_put_u32(GB_PROTO_VERSION);
    txq_put_str(" fw=" GB_FW_VERSION " size=");
    txq_put_u32(GB_BOARD_SIZE);
    txq_put_str(" sensors=");
    txq_put_u32(GB_SENSOR_COUNT);
    txq_put_str(" adcmax=1023 rate=");
    txq_put_u32(stream_rate());
    txq_put_str(" buttons=");
    for (uint8_t i = 0; i < GB_BUTTON_COUNT; i++) {
        if (i) txq_put_char(',');
        txq_put_str(button_name(i));
    }
    txq_line_end(false);
}

/* ---- argument parsing ----------------------------------------------------- */

/* Decimal 0..max, digits only. */
static bool parse_uint(const char *s, uint16_t max, uint16_t *out) {
    uint16_t v = 0;
    if (!*s || strlen(s) > 5) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        v = (uint16_t)(v * 10 + (*s - '0'));
    }
    if (v > max) return false;
    *out = v;
    return true;
}

/* GTP vertex on the 9x9 board ("D4", "j9"; no I) -> row (0 = top), col. */
static bool parse_vertex(const char *s, uint8_t *row, uint8_t *col) {
    if (strlen(s) != 2) return false;
    char letter = (char)toupper(s[0]);
    if (letter < 'A' || letter > 'Z' || letter == 'I') return false;
    uint8_t c = (uint8_t)(letter - 'A' - (letter > 'I' ? 1 : 0));
    if (s[1] < '1' || s[1] > '9') return false;
    uint8_t gtp_row = (uint8_t)(s[1] - '0');
    if (c >= GB_BOARD_SIZE || gtp_row > GB_BOARD_SIZE) return false;
    *col = c;
    *row = (uint8_t)(GB_BOARD_SIZE - gtp_row);
    return true;
}

static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

static uint8_t hex_value(char c) {
    if (c <= '9') return (uint8_t)(c - '0');
    return (uint8_t)((c | 0x20) - 'a' + 10);
}

/* ---- command handlers ------------------------------------------------------ */
/* argv[0] is the command word; argc >= 1. Each handler sends exactly one reply. */

static void cmd_hello(uint8_t argc, char **) {
    if (argc != 1) return bad_arg("HELLO takes no arguments");
    commands_send_hello();
}

static void cmd_ping(uint8_t argc, char **argv) {
    if (argc > 2) return bad_arg("PING takes at most one token");
    if (argc == 2 && strlen(argv[1]) > GB_TOKEN_MAX) return bad_arg("PING token longer than " GB_STR(GB_TOKEN_MAX));
    txq_line_begin();
    txq_put_str("PONG");
    if (argc == 2) {
        txq_put_char(' ');
        put_echo(argv[1], GB_TOKEN_MAX);
    }
    txq_line_end(false);
}

static void cmd_status(uint8_t argc, char **) {
    if (argc != 1) return bad_arg("STATUS takes no arguments");
    txq_line_begin();
    txq_put_str("STATUS up=");
    txq_put_u32(millis());
    txq_put_str(" scans=");
    txq_put_u32(scanner_count());
    txq_put_str(" scan_us=");
    txq_put_u32(scanner_last_us());
    txq_put_str(" frames=");
    txq_put_u32(stream_frames_sent());
    txq_put_str(" skipped=");
    txq_put_u32(stream_frames_skipped());
    txq_put_str(" rate=");
    txq_put_u32(stream_rate());
    txq_put_str(" led=");
    txq_put_str(leds_mode_name());
    txq_put_str(" rxerr=");
    txq_put_u32(rx_errors);
    txq_put_str(" cmderr=");
    txq_put_u32(cmd_errors);
    txq_line_end(false);
}

static void cmd_rate(uint8_t argc, char **argv) {
    uint16_t hz;
    if (argc != 2 || !parse_uint(argv[1], GB_RATE_MAX, &hz)) return bad_arg("RATE needs 0.." GB_STR(GB_RATE_MAX));
    stream_set_rate((uint8_t)hz);
    reply_ok_u32("RATE", hz);
}

static void cmd_cal(uint8_t argc, char **argv) {
    uint16_t n;
    if (argc != 2 || !parse_uint(argv[1], GB_CAL_MAX, &n) || n == 0) return bad_arg("CAL needs 1.." GB_STR(GB_CAL_MAX));
    if (!stream_start_cal((uint8_t)n)) {
        cmd_errors++;
        return reply_err("BUSY", "calibration already running", 0);
    }
    reply_ok_u32("CAL", n);
}

static void cmd_led(uint8_t argc, char **argv) {
    if (argc < 2) return bad_arg("LED needs OFF, POINT, BLINK or PROBLEM");
    const char *mode = argv[1];
    if (!strcasecmp(mode, "OFF") || !strcasecmp(mode, "PROBLEM")) {
        if (argc != 2) return bad_arg("LED OFF/PROBLEM take no points");
        bool off = !strcasecmp(mode, "OFF");
        if (off)
            leds_off();
        else
            leds_problem();
        return reply_ok("LED", off ? "OFF" : "PROBLEM");
    }
    if (!strcasecmp(mode, "POINT")) {
        uint8_t row, col;
        if (argc != 3) return bad_arg("LED POINT needs one point");
        if (!parse_vertex(argv[2], &row, &col)) return bad_arg("bad point ", argv[2]);
        leds_point(row, col);
        return reply_ok("LED", "POINT");
    }
    if (!strcasecmp(mode, "BLINK")) {
        uint8_t rows[GB_BLINK_MAX], cols[GB_BLINK_MAX];
        uint8_t n = (uint8_t)(argc - 2);
        if (n < 1 || n > GB_BLINK_MAX) return bad_arg("LED BLINK needs 1.." GB_STR(GB_BLINK_MAX) " points");
        for (uint8_t k = 0; k < n; k++)
            if (!parse_vertex(argv[2 + k], &rows[k], &cols[k])) return bad_arg("bad point ", argv[2 + k]);
        leds_blink(rows, cols, n);
        return reply_ok("LED", "BLINK");
    }
    bad_arg("unknown LED mode ", mode);
}

struct command {
    const char *name;
    void (*run)(uint8_t argc, char **argv);
};

static const command table[] = {
    {"HELLO", cmd_hello}, {"PING", cmd_ping}, {"STATUS", cmd_status},
    {"RATE", cmd_rate},   {"LED", cmd_led},   {"CAL", cmd_cal},
};

/* ---- line execution -------------------------------------------------------- */

/* Check the optional "*CRC" suffix, split into tokens, dispatch. */
static void execute(char *line) {
    char *star = strrchr(line, '*');
    if (star) {
        const char *hex = star + 1;
        bool ok = strlen(hex) == 4;
        for (uint8_t i = 0; ok && i < 4; i++) ok = is_hex(hex[i]);
        if (!ok) {
            rx_errors++;
            return reply_err("BAD_CRC", "checksum must be *XXXX (4 hex digits)", 0);
        }
        uint16_t want = 0;
        for (uint8_t i = 0; i < 4; i++) want = (uint16_t)(want << 4 | hex_value(hex[i]));
        if (crc16(line, (uint16_t)(star - line)) != want) {
            rx_errors++;
            return reply_err("BAD_CRC", "checksum mismatch", 0);
        }
        *star = '\0';
    }

    char *argv[GB_TOKENS_MAX];
    uint8_t argc = 0;
    for (char *p = line; *p;) {
        while (*p == ' ') *p++ = '\0';
        if (!*p) break;
        if (argc == GB_TOKENS_MAX) return bad_arg("too many arguments");
        argv[argc++] = p;
        while (*p && *p != ' ') p++;
    }
    if (!argc) {
        if (!star) return; /* blank line: no reply */
        cmd_errors++;
        return reply_err("UNKNOWN", "empty command", 0);
    }

    for (uint8_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!strcasecmp(argv[0], table[i].name)) {
            table[i].run(argc, argv);
            return;
        }
    }
    cmd_errors++;
    reply_err("UNKNOWN", "unknown command ", argv[0]);
}

void commands_begin(void) {
    len = 0;
    too_long = bad_char = false;
    rx_errors = cmd_errors = 0;
}

void commands_poll(void) {
    while (Serial.available() > 0) {
        int c = Serial.read();
        if (c == '\n') {
            if (too_long) {
                rx_errors++;
                reply_err("TOO_LONG", "line longer than " GB_STR(GB_LINE_MAX) " bytes", 0);
            } else if (bad_char) {
                rx_errors++;
                reply_err("BAD_CHAR", "non-printable byte in line", 0);
            } else if (len) {
                buf[len] = '\0';
                execute(buf);
            }
            len = 0;
            too_long = bad_char = false;
            return; /* at most one line per call keeps the main loop fair */
        }
        if (c == '\r') continue;
        if (c < 0x20 || c > 0x7E) {
            bad_char = true;
        } else if (len < GB_LINE_MAX) {
            buf[len++] = (char)c;
        } else {
            too_long = true;
        }
    }
}
