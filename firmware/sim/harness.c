/*
 * harness.c - runs the Go Learning Buddy firmware on a simulated ATmega2560
 * (libsimavr) with its sensors, buttons and LEDs, and exposes:
 *
 *   1. the board's serial port (UART0) as a pseudo-terminal, for the host
 *      (edge agent, tests) to open like /dev/ttyACM0;
 *   2. a control channel on stdin/stdout to set sensor voltages, press
 *      buttons and read the LEDs (firmware/sim/simboard.py drives it).
 *
 * Usage: simharness [--link PATH] [--speed X] [--no-reset-on-open] FIRMWARE.elf
 *   --link PATH         also make PATH a symlink to the pty (removed at exit)
 *   --speed X           simulated seconds per wall second (default 1 = real
 *                       time; 0 = as fast as possible)
 *   --no-reset-on-open  keep running when a host opens the pty (default: the
 *                       MCU is reset, as a real Mega resets on DTR when its
 *                       USB port is opened, so the host sees a fresh HELLO)
 *
 * Control channel: the first stdout line is "PTY <path>". Then each stdin
 * line is one command, answered by exactly one stdout line "OK ..." or
 * "ERR <reason>". Millivolts are 0..5000 (the ADC reference is 5000 mV, so
 * raw = mV * 1023 / 5000, rounded down). Sensor indices are protocol order.
 *   SET <index> <mV>              one sensor
 *   SETALL <mV0> ... <mV80>       all 81 sensors
 *   SPARE <mV>                    what unused mux channels read (default 0)
 *   BTN <NAME> <0|1>              release / press a button now -> OK t_us=<now>
 *   BTNSEQ <NAME> <lvl>:<ms> ...  drive a button through levels (1 = pressed)
 *                                 each held <ms> of simulated time (decimal
 *                                 allowed), starting now; the last level stays
 *                                 -> OK t_us=<start>
 *   LEDS?                         -> OK rows=<9x0/1> cols=<9x0/1> hb=<0/1> t_us=<sim us>
 *   TIME?                         -> OK <simulated microseconds since start>
 *   STATS?                        -> OK t_us=.. reset_us=<last MCU reset> tx=.. rx=..
 *                                    dropped=.. resets=.. crashes=.. open=0/1
 *   RESET                         reset the MCU (power stays on)
 *   QUIT                          exit
 * The harness exits when stdin reaches end of file. simavr's own chatter
 * goes to stderr.
 *
 * Timing: the simulation runs in slices of at most 1 ms of simulated time
 * and is throttled so simulated time tracks wall time (x speed). If the
 * machine is too slow it runs as fast as it can and never bursts to catch
 * up by more than 20 ms. The UART moves bytes at the configured baud rate
 * (simavr models per-byte timing), so 115200 baud costs what it costs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_adc.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"

#include "board_pins.h"

#define F_CPU_HZ 16000000ULL
#define SLICE_CYCLES (F_CPU_HZ / 1000) /* 1 ms */
#define MAX_LAG_NS 20000000LL          /* never catch up more than 20 ms */
#define UCSR0B_ADDR 0xC1               /* ATmega2560 data-space address */
#define RXEN0_BIT 4
#define BTN_STEPS_MAX 64

/* ---- state ------------------------------------------------------------- */

static avr_t *avr;
static FILE *ctl_out;
static double speed = 1.0;
static bool reset_on_open = true;
static const char *link_path;

static uint64_t cycles_base; /* cycles run before the last MCU reset */
static struct {
    uint64_t resets, crashes, tx, rx, dropped;
    uint64_t reset_cycles; /* simulated time of the last MCU reset */
} stats;

static uint16_t sensor_mv[GB_SENSOR_COUNT];
static uint16_t spare_mv;
static int16_t mux_sensor[GB_MUX_COUNT][GB_MUX_CHANNELS]; /* -1 = spare */
static avr_irq_t *adc_irq;

static avr_irq_t *uart_irq;
static bool uart_xoff;
static int pty_fd = -1;
static char pty_name[128];
static bool host_open;
static uint8_t to_avr[4096]; /* host -> UART, waiting for XON */
static size_t to_avr_len;
static uint8_t to_host[1 << 16]; /* UART -> host, waiting for the pty */
static size_t to_host_len;

struct button {
    const char *name;
    uint8_t bit;
    bool pressed;
    avr_irq_t *irq;
    uint8_t nsteps, step; /* scripted levels (BTNSEQ) */
    bool levels[BTN_STEPS_MAX];
    uint64_t durations[BTN_STEPS_MAX]; /* cycles */
    uint64_t next_at;                  /* when to apply levels[step]; 0 = idle */
};
static struct button buttons[GB_BUTTON_COUNT];

struct led {
    char port;
    uint8_t bit;
};
static struct led row_leds[GB_BOARD_SIZE], col_leds[GB_BOARD_SIZE];

/* ---- time ---------------------------------------------------------------- */

static uint64_t sim_cycles(void) { return cycles_base + avr->cycle; }
static uint64_t sim_us(void) { return sim_cycles() / (F_CPU_HZ / 1000000); }

static int64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- pins ------------------------------------------------------------------ */

static avr_ioport_state_t port_state(char port) {
    avr_ioport_state_t st;
    memset(&st, 0, sizeof st);
    avr_ioctl(avr, AVR_IOCTL_IOPORT_GETSTATE(port), &st);
    return st;
}

/* Level the MCU drives on an output pin (0 when the pin is an input). */
static int driven(char port, uint8_t bit) {
    avr_ioport_state_t st = port_state(port);
    return ((st.port & st.ddr) >> bit) & 1;
}

/* Present every button level on its pin. Also the levels the port reports
 * for its pins when the firmware rewrites PORT/DDR ("external" pull). Forced
 * past simavr's same-value filter, because a reset clears the PIN registers. */
static void apply_buttons(void) {
    char port = GB_STR(GB_BUTTON_PORT)[0];
    avr_ioport_external_t ext = {.name = port, .mask = 0, .value = 0};
    for (int i = 0; i < GB_BUTTON_COUNT; i++) {
        ext.mask |= 1u << buttons[i].bit;
        if (!buttons[i].pressed) ext.value |= 1u << buttons[i].bit;
    }
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(port), &ext);
    for (int i = 0; i < GB_BUTTON_COUNT; i++) {
        buttons[i].irq->flags |= IRQ_FLAG_INIT;
        avr_raise_irq(buttons[i].irq, buttons[i].pressed ? 0 : 1);
    }
}

static struct button *find_button(const char *name) {
    for (int i = 0; i < GB_BUTTON_COUNT; i++)
        if (!strcasecmp(name, buttons[i].name)) return &buttons[i];
    return NULL;
}

/* Apply scripted button levels that are due; return the next due time (or UINT64_MAX). */
static uint64_t run_button_scripts(void) {
    uint64_t now = sim_cycles(), next = UINT64_MAX;
    bool changed = false;
    for (int i = 0; i < GB_BUTTON_COUNT; i++) {
        struct button *b = &buttons[i];
        while (b->next_at && b->next_at <= now) {
            b->pressed = b->levels[b->step];
            changed = true;
            uint64_t hold = b->durations[b->step];
            b->step++;
            b->next_at = (b->step < b->nsteps) ? b->next_at + hold : 0;
        }
        if (b->next_at && b->next_at < next) next = b->next_at;
    }
    if (changed) apply_buttons();
    return next;
}

/* ---- ADC: answer each conversion with the selected sensor's voltage ------- */

static void adc_trigger_hook(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    union {
        avr_adc_mux_t mux;
        uint32_t v;
    } e = {.v = value};
    if (e.mux.kind != ADC_MUX_SINGLE) return;
    int mux = -1;
    for (int m = 0; m < GB_MUX_COUNT; m++)
        if (GB_MUX_ADC_CHANNEL(m) == (int)e.mux.src) mux = m;
    if (mux < 0) return;
    avr_ioport_state_t st = port_state(GB_STR(GB_SEL_PORT)[0]);
    int channel = ((st.port & st.ddr) & GB_SEL_MASK) >> GB_SEL_SHIFT;
    int sensor = mux_sensor[mux][channel];
    uint32_t mv = sensor >= 0 ? sensor_mv[sensor] : spare_mv;
    avr_raise_irq(adc_irq + ADC_IRQ_ADC0 + e.mux.src, mv);
}

/* ---- UART <-> pty ---------------------------------------------------------- */

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    if (!host_open) return; /* nobody listening: the bytes are gone, as on a real link */
    if (to_host_len == sizeof to_host) {
        stats.dropped++;
        return;
    }
    to_host[to_host_len++] = (uint8_t)value;
    stats.tx++;
}

static void uart_xon_hook(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    if (value) uart_xoff = false;
}

static void uart_xoff_hook(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    uart_xoff = value != 0;
}

static void mcu_reset(void) {
    cycles_base += avr->cycle;
    avr_reset(avr);
    uart_xoff = false;
    apply_buttons();
    stats.resets++;
    stats.reset_cycles = cycles_base;
}

/* Feed waiting host bytes into the UART while its receiver is on and has room. */
static void feed_uart(void) {
    size_t n = 0;
    if (!(avr->data[UCSR0B_ADDR] & (1 << RXEN0_BIT))) return; /* hold until Serial.begin() */
    while (n < to_avr_len && !uart_xoff) {
        avr_raise_irq(uart_irq + UART_IRQ_INPUT, to_avr[n++]);
        stats.rx++;
    }
    memmove(to_avr, to_avr + n, to_avr_len - n);
    to_avr_len -= n;
}

static void service_pty(short revents) {
    bool open_now = !(revents & POLLHUP);
    if (open_now && !host_open) {
        tcflush(pty_fd, TCOFLUSH); /* nothing stale for the new host */
        to_host_len = 0;
        if (reset_on_open) mcu_reset();
    }
    if (!open_now && host_open) to_avr_len = 0;
    host_open = open_now;
    if (!host_open) {
        to_host_len = 0;
        return;
    }
    if (revents & POLLIN) {
        ssize_t r = read(pty_fd, to_avr + to_avr_len, sizeof to_avr - to_avr_len);
        if (r > 0) to_avr_len += (size_t)r;
    }
    if (to_host_len) {
        ssize_t w = write(pty_fd, to_host, to_host_len);
        if (w > 0) {
            memmove(to_host, to_host + w, to_host_len - (size_t)w);
            to_host_len -= (size_t)w;
        }
    }
}

static void open_pty(void) {
    pty_fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (pty_fd < 0 || grantpt(pty_fd) || unlockpt(pty_fd)) {
        perror("harness: pty");
        exit(1);
    }
    struct termios t;
    tcgetattr(pty_fd, &t);
    cfmakeraw(&t);
    tcsetattr(pty_fd, TCSANOW, &t); /* on a master this sets the slave side */
    snprintf(pty_name, sizeof pty_name, "%s", ptsname(pty_fd));
    /* Open and close the slave once: from then on poll() reports POLLHUP
     * exactly while no host has it open. */
    int s = open(pty_name, O_RDWR | O_NOCTTY);
    if (s >= 0) close(s);
    if (link_path) {
        unlink(link_path);
        if (symlink(pty_name, link_path)) perror("harness: symlink");
    }
}

/* ---- control channel ---------------------------------------------------------- */

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(ctl_out, fmt, ap);
    va_end(ap);
    fputc('\n', ctl_out);
    if (fflush(ctl_out)) exit(0); /* controller gone */
}

static bool parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    if (!s) return false;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static void cmd_btnseq(struct button *b, char *save) {
    uint8_t n = 0;
    bool levels[BTN_STEPS_MAX];
    uint64_t durations[BTN_STEPS_MAX];
    for (char *tok; (tok = strtok_r(NULL, " ", &save));) {
        char *colon = strchr(tok, ':'), *end;
        if (n == BTN_STEPS_MAX || !colon || colon != tok + 1 || (tok[0] != '0' && tok[0] != '1'))
            return reply("ERR BTNSEQ steps are <0|1>:<ms>, at most %d", BTN_STEPS_MAX);
        double ms = strtod(colon + 1, &end);
        if (*end || ms < 0 || ms > 3600e3) return reply("ERR bad duration %s", colon + 1);
        levels[n] = tok[0] == '1';
        durations[n] = (uint64_t)(ms * (F_CPU_HZ / 1000) + 0.5);
        n++;
    }
    if (!n) return reply("ERR BTNSEQ needs steps");
    memcpy(b->levels, levels, sizeof levels);
    memcpy(b->durations, durations, sizeof durations);
    b->nsteps = n;
    b->step = 0;
    b->next_at = sim_cycles() ? sim_cycles() : 1;
    run_button_scripts();
    reply("OK t_us=%llu", (unsigned long long)sim_us());
}

static void handle_command(char *line) {
    char *save = NULL;
    char *cmd = strtok_r(line, " ", &save);
    long v, idx;
    if (!cmd) return reply("ERR empty command");
    if (!strcmp(cmd, "SET")) {
        char *a = strtok_r(NULL, " ", &save), *b = strtok_r(NULL, " ", &save);
        if (!parse_long(a, 0, GB_SENSOR_COUNT - 1, &idx) || !parse_long(b, 0, 5000, &v))
            return reply("ERR usage: SET <0..80> <0..5000>");
        sensor_mv[idx] = (uint16_t)v;
        return reply("OK");
    }
    if (!strcmp(cmd, "SETALL")) {
        uint16_t mv[GB_SENSOR_COUNT];
        for (int i = 0; i < GB_SENSOR_COUNT; i++) {
            if (!parse_long(strtok_r(NULL, " ", &save), 0, 5000, &v))
                return reply("ERR usage: SETALL <81 values 0..5000>");
            mv[i] = (uint16_t)v;
        }
        if (strtok_r(NULL, " ", &save)) return reply("ERR SETALL takes exactly 81 values");
        memcpy(sensor_mv, mv, sizeof mv);
        return reply("OK");
    }
    if (!strcmp(cmd, "SPARE")) {
        if (!parse_long(strtok_r(NULL, " ", &save), 0, 5000, &v)) return reply("ERR usage: SPARE <0..5000>");
        spare_mv = (uint16_t)v;
        return reply("OK");
    }
    if (!strcmp(cmd, "BTN") || !strcmp(cmd, "BTNSEQ")) {
        char *name = strtok_r(NULL, " ", &save);
        struct button *b = name ? find_button(name) : NULL;
        if (!b) return reply("ERR unknown button %s", name ? name : "(none)");
        if (!strcmp(cmd, "BTNSEQ")) return cmd_btnseq(b, save);
        if (!parse_long(strtok_r(NULL, " ", &save), 0, 1, &v)) return reply("ERR usage: BTN <NAME> <0|1>");
        b->next_at = 0; /* a direct level cancels a running script */
        b->pressed = v == 1;
        apply_buttons();
        return reply("OK t_us=%llu", (unsigned long long)sim_us());
    }
    if (!strcmp(cmd, "LEDS?")) {
        char rows[GB_BOARD_SIZE + 1], cols[GB_BOARD_SIZE + 1];
        for (int i = 0; i < GB_BOARD_SIZE; i++) {
            rows[i] = (char)('0' + driven(row_leds[i].port, row_leds[i].bit));
            cols[i] = (char)('0' + driven(col_leds[i].port, col_leds[i].bit));
        }
        rows[GB_BOARD_SIZE] = cols[GB_BOARD_SIZE] = '\0';
        return reply("OK rows=%s cols=%s hb=%d t_us=%llu", rows, cols,
                     driven(GB_STR(GB_HEARTBEAT_PORT)[0], GB_HEARTBEAT_BIT),
                     (unsigned long long)sim_us());
    }
    if (!strcmp(cmd, "TIME?")) return reply("OK %llu", (unsigned long long)sim_us());
    if (!strcmp(cmd, "STATS?"))
        return reply("OK t_us=%llu reset_us=%llu tx=%llu rx=%llu dropped=%llu resets=%llu crashes=%llu open=%d",
                     (unsigned long long)sim_us(),
                     (unsigned long long)(stats.reset_cycles / (F_CPU_HZ / 1000000)),
                     (unsigned long long)stats.tx,
                     (unsigned long long)stats.rx, (unsigned long long)stats.dropped,
                     (unsigned long long)stats.resets, (unsigned long long)stats.crashes,
                     host_open ? 1 : 0);
    if (!strcmp(cmd, "RESET")) {
        mcu_reset();
        return reply("OK");
    }
    if (!strcmp(cmd, "QUIT")) {
        reply("OK");
        if (link_path) unlink(link_path);
        exit(0);
    }
    reply("ERR unknown command %s", cmd);
}

static char ctl_line[2048];
static size_t ctl_len;
static bool ctl_overflow;

/* Read what stdin holds; run each complete line. Exits on end of file. */
static void service_control(void) {
    char chunk[1024];
    ssize_t r = read(STDIN_FILENO, chunk, sizeof chunk);
    if (r == 0) {
        if (link_path) unlink(link_path);
        exit(0);
    }
    if (r < 0) return;
    for (ssize_t i = 0; i < r; i++) {
        char c = chunk[i];
        if (c == '\r') continue;
        if (c != '\n') {
            if (ctl_len < sizeof ctl_line - 1)
                ctl_line[ctl_len++] = c;
            else
                ctl_overflow = true;
            continue;
        }
        ctl_line[ctl_len] = '\0';
        if (ctl_overflow)
            reply("ERR line too long");
        else
            handle_command(ctl_line);
        ctl_len = 0;
        ctl_overflow = false;
    }
}

/* ---- setup and main loop ---------------------------------------------------- */

static void usage(void) {
    fprintf(stderr, "usage: simharness [--link PATH] [--speed X] [--no-reset-on-open] FIRMWARE.elf\n");
    exit(2);
}

static void setup_board(void) {
    for (int m = 0; m < GB_MUX_COUNT; m++)
        for (int ch = 0; ch < GB_MUX_CHANNELS; ch++) mux_sensor[m][ch] = -1;
    for (int i = 0; i < GB_SENSOR_COUNT; i++) mux_sensor[GB_SENSOR_MUX(i)][GB_SENSOR_CHANNEL(i)] = (int16_t)i;

#define ROW_LED(i, P, b) row_leds[i] = (struct led){#P[0], b};
#define COL_LED(i, P, b) col_leds[i] = (struct led){#P[0], b};
    GB_ROW_LEDS(ROW_LED)
    GB_COL_LEDS(COL_LED)
#define BUTTON(i, NAME, b) buttons[i].name = #NAME, buttons[i].bit = b;
    GB_BUTTONS(BUTTON)

    char bport = GB_STR(GB_BUTTON_PORT)[0];
    for (int i = 0; i < GB_BUTTON_COUNT; i++)
        buttons[i].irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(bport), buttons[i].bit);
    apply_buttons();

    adc_irq = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, 0);
    avr_irq_register_notify(adc_irq + ADC_IRQ_OUT_TRIGGER, adc_trigger_hook, NULL);

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP); /* we carry the bytes; never usleep */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), 0);
    avr_irq_register_notify(uart_irq + UART_IRQ_OUTPUT, uart_out_hook, NULL);
    avr_irq_register_notify(uart_irq + UART_IRQ_OUT_XON, uart_xon_hook, NULL);
    avr_irq_register_notify(uart_irq + UART_IRQ_OUT_XOFF, uart_xoff_hook, NULL);
}

int main(int argc, char **argv) {
    const char *elf = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc)
            link_path = argv[++i];
        else if (!strcmp(argv[i], "--speed") && i + 1 < argc)
            speed = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-reset-on-open"))
            reset_on_open = false;
        else if (argv[i][0] == '-' || elf)
            usage();
        else
            elf = argv[i];
    }
    if (!elf || speed < 0) usage();

    /* stdout is the control channel; simavr prints chatter on stdout: send it to stderr. */
    int ctl_fd = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    ctl_out = fdopen(ctl_fd, "w");
    signal(SIGPIPE, SIG_IGN);
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw)) {
        fprintf(stderr, "harness: cannot read %s\n", elf);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega2560");
    if (!avr) {
        fprintf(stderr, "harness: simavr has no atmega2560\n");
        return 1;
    }
    avr_init(avr);
    avr->log = LOG_WARNING;
    fw.frequency = F_CPU_HZ;
    avr_load_firmware(avr, &fw);
    avr->frequency = F_CPU_HZ;
    avr->vcc = avr->avcc = avr->aref = 5000;

    setup_board();
    open_pty();
    reply("PTY %s", pty_name);

    int64_t wall_base = wall_ns();
    for (;;) {
        /* 1. simulate up to 1 ms, stopping early for a scripted button change */
        uint64_t target = sim_cycles() + SLICE_CYCLES;
        uint64_t next_button = run_button_scripts();
        if (next_button < target) target = next_button;
        while (sim_cycles() < target) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                /* simavr stops on a watchdog timeout or a crash; a real MCU resets */
                fprintf(stderr, "harness: MCU stopped (state %d) at %llu us; resetting\n", state,
                        (unsigned long long)sim_us());
                stats.crashes++;
                mcu_reset();
            }
        }

        /* 2. exchange bytes and control commands; 3. throttle while doing so */
        int64_t ahead_ns = 0;
        if (speed > 0) {
            int64_t sim_ns = (int64_t)((double)sim_cycles() * 1e9 / F_CPU_HZ / speed);
            int64_t now = wall_ns();
            if (now - (wall_base + sim_ns) > MAX_LAG_NS) wall_base = now - sim_ns - MAX_LAG_NS;
            ahead_ns = wall_base + sim_ns - now;
        }
        struct pollfd probe = {pty_fd, POLLIN, 0};
        poll(&probe, 1, 0); /* notices a host opening (or closing) the pty */
        service_pty(probe.revents);
        for (;;) {
            /* While no host has the pty, poll() would report POLLHUP at once
             * and spin; leave the pty out and let the next probe notice it. */
            struct pollfd fds[2] = {{host_open ? pty_fd : -1, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
            struct timespec ts = {ahead_ns > 0 ? ahead_ns / 1000000000LL : 0,
                                  ahead_ns > 0 ? ahead_ns % 1000000000LL : 0};
            if (to_host_len && host_open) fds[0].events |= POLLOUT;
            int n = ppoll(fds, 2, &ts, NULL);
            if (n < 0 && errno != EINTR) {
                perror("harness: poll");
                return 1;
            }
            if (n > 0 && fds[0].revents) service_pty(fds[0].revents);
            if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP))) service_control();
            feed_uart();
            if (speed <= 0) break;
            int64_t sim_ns = (int64_t)((double)sim_cycles() * 1e9 / F_CPU_HZ / speed);
            ahead_ns = wall_base + sim_ns - wall_ns();
            if (ahead_ns <= 0) break;
        }
    }
}
