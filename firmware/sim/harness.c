/*
 * harness.c - runs the Go Learning Buddy firmware on a simulated ATmega2560
 * (libsimavr) with its sensors, buttons and LEDs (board_model.c), and
 * exposes:
 *
 *   1. the board's serial port (UART0) as a pseudo-terminal, for the host
 *      (edge agent, tests) to open like /dev/ttyACM0 (serial_pty.c);
 *   2. a control channel on stdin/stdout to set sensor voltages, press
 *      buttons and read the LEDs (firmware/sim/simboard.py drives it).
 *
 * Usage: simharness [--link PATH] [--speed X] [--no-reset-on-open] [--no-control] FIRMWARE.elf
 *   --link PATH         also make PATH a symlink to the pty (removed at exit)
 *   --no-control        ignore stdin (no control channel; runs until killed,
 *                       e.g. as a service with stdin at /dev/null)
 *   --speed X           simulated seconds per wall second (default 1 = real
 *                       time; 0 = as fast as possible)
 *   --no-reset-on-open  keep running when a host opens the pty (default: the
 *                       MCU is reset 50 ms later, as a real Mega resets on
 *                       DTR when its USB port is opened, so the host sees a
 *                       fresh HELLO; output before that reset is dropped)
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
 *                                    (the state that has stood ~1 ms: no transients)
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
 * (simavr models per-byte timing, about 10.7 KB/s here), so 115200 baud
 * costs what it costs.
 *
 * Faults: simavr stops the MCU on a watchdog timeout (its model does not
 * reset) or a crash; the harness then resets it, as the real watchdog would,
 * logs it on stderr and counts it in STATS? crashes (tests assert 0).
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
#include <time.h>
#include <unistd.h>

#include "sim_avr.h"
#include "sim_elf.h"

#include "board_model.h"
#include "serial_pty.h"

#define F_CPU_HZ 16000000ULL
#define CYCLES_PER_MS (F_CPU_HZ / 1000)
#define SLICE_CYCLES CYCLES_PER_MS /* simulate at most 1 ms between I/O checks */
#define MAX_LAG_NS 20000000LL      /* never catch up more than 20 ms */
/* After a host opens the pty, the MCU is reset this much later: a real
 * Mega's bootloader also runs a while before the sketch starts, and hosts
 * (pyserial's open() flushes its input) must not miss the boot HELLO. */
#define OPEN_RESET_DELAY_CYCLES (50 * CYCLES_PER_MS)

static avr_t *avr;
static FILE *ctl_out;
static double speed = 1.0;
static bool reset_on_open = true;
static bool control = true; /* stdin is the control channel */

static uint64_t cycles_base;   /* cycles run before the last MCU reset */
static uint64_t open_reset_at; /* cycle of a pending reset-on-open; 0 = none */
static struct {
    uint64_t resets, crashes, reset_cycles;
} stats;

/* ---- time ---------------------------------------------------------------- */

/* Simulated CPU cycles since start; monotonic across MCU resets. */
static uint64_t sim_cycles(void) { return cycles_base + avr->cycle; }
static unsigned long long sim_us(void) { return sim_cycles() / (F_CPU_HZ / 1000000); }

static int64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t sim_ns_scaled(void) { return (int64_t)((double)sim_cycles() * 1e9 / F_CPU_HZ / speed); }

/* ---- MCU ------------------------------------------------------------------- */

static void mcu_reset(void) {
    /* avr_reset() zeroes the cycle counter only after the peripherals have
     * re-armed their cycle timers, which would leave those timers at the old
     * absolute cycle (boot stalls for the previous uptime). Zero it first. */
    cycles_base += avr->cycle;
    avr->cycle = 0;
    avr_reset(avr);
    serial_after_reset();
    board_after_reset();
    stats.resets++;
    stats.reset_cycles = cycles_base;
}

/* Run the MCU until `target` cycles. simavr stops the MCU on a watchdog
 * timeout (its model does not reset) or a crash: reset it, as a real one. */
static void simulate_until(uint64_t target) {
    while (sim_cycles() < target) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "harness: MCU stopped (state %d) at %llu us; resetting\n", state, sim_us());
            stats.crashes++;
            mcu_reset();
        }
    }
}

static void quit(int code) {
    serial_cleanup();
    exit(code);
}

/* SIGTERM/SIGINT: remove the --link symlink (unlink is async-signal-safe). */
static void on_signal(int sig) {
    serial_cleanup();
    _exit(128 + sig);
}

/* ---- control channel ---------------------------------------------------------- */

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(ctl_out, fmt, ap);
    va_end(ap);
    fputc('\n', ctl_out);
    if (fflush(ctl_out)) quit(0); /* controller gone */
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

/* BTNSEQ steps "<0|1>:<ms>" from strtok_r state `save`. */
static void cmd_btnseq(int button, char *save) {
    bool levels[BOARD_SCRIPT_MAX];
    uint64_t durations[BOARD_SCRIPT_MAX];
    int n = 0;
    for (char *tok; (tok = strtok_r(NULL, " ", &save));) {
        char *end;
        if (n == BOARD_SCRIPT_MAX || (tok[0] != '0' && tok[0] != '1') || tok[1] != ':')
            return reply("ERR BTNSEQ steps are <0|1>:<ms>, at most %d", BOARD_SCRIPT_MAX);
        double ms = strtod(tok + 2, &end);
        if (end == tok + 2 || *end || ms < 0 || ms > 3600e3) return reply("ERR bad duration %s", tok + 2);
        levels[n] = tok[0] == '1';
        durations[n] = (uint64_t)(ms * CYCLES_PER_MS + 0.5);
        n++;
    }
    if (!n) return reply("ERR BTNSEQ needs steps");
    uint64_t now = sim_cycles();
    board_script_button(button, levels, durations, n, now);
    reply("OK t_us=%llu", sim_us());
}

static void handle_command(char *line) {
    char *save = NULL;
    char *cmd = strtok_r(line, " ", &save);
    long v, idx;
    if (!cmd) return reply("ERR empty command");
    if (!strcmp(cmd, "SET")) {
        char *a = strtok_r(NULL, " ", &save), *b = strtok_r(NULL, " ", &save);
        if (!parse_long(a, 0, GB_SENSOR_COUNT - 1, &idx) || !parse_long(b, 0, 5000, &v) ||
            strtok_r(NULL, " ", &save))
            return reply("ERR usage: SET <0..80> <0..5000>");
        board_set_sensor_mv((int)idx, (uint16_t)v);
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
        for (int i = 0; i < GB_SENSOR_COUNT; i++) board_set_sensor_mv(i, mv[i]);
        return reply("OK");
    }
    if (!strcmp(cmd, "SPARE")) {
        if (!parse_long(strtok_r(NULL, " ", &save), 0, 5000, &v)) return reply("ERR usage: SPARE <0..5000>");
        board_set_spare_mv((uint16_t)v);
        return reply("OK");
    }
    if (!strcmp(cmd, "BTN") || !strcmp(cmd, "BTNSEQ")) {
        char *name = strtok_r(NULL, " ", &save);
        int button = name ? board_button(name) : -1;
        if (button < 0) return reply("ERR unknown button %s", name ? name : "(none)");
        if (!strcmp(cmd, "BTNSEQ")) return cmd_btnseq(button, save);
        if (!parse_long(strtok_r(NULL, " ", &save), 0, 1, &v)) return reply("ERR usage: BTN <NAME> <0|1>");
        board_set_button(button, v == 1);
        return reply("OK t_us=%llu", sim_us());
    }
    if (!strcmp(cmd, "LEDS?")) {
        char rows[GB_BOARD_SIZE + 1], cols[GB_BOARD_SIZE + 1];
        int hb = board_leds(rows, cols);
        return reply("OK rows=%s cols=%s hb=%d t_us=%llu", rows, cols, hb, sim_us());
    }
    if (!strcmp(cmd, "TIME?")) return reply("OK %llu", sim_us());
    if (!strcmp(cmd, "STATS?")) {
        struct serial_counts c = serial_counts();
        return reply("OK t_us=%llu reset_us=%llu tx=%llu rx=%llu dropped=%llu resets=%llu crashes=%llu open=%d",
                     sim_us(), (unsigned long long)(stats.reset_cycles / (F_CPU_HZ / 1000000)),
                     (unsigned long long)c.tx, (unsigned long long)c.rx, (unsigned long long)c.dropped,
                     (unsigned long long)stats.resets, (unsigned long long)stats.crashes,
                     serial_host_open() ? 1 : 0);
    }
    if (!strcmp(cmd, "RESET")) {
        mcu_reset();
        return reply("OK");
    }
    if (!strcmp(cmd, "QUIT")) {
        reply("OK");
        quit(0);
    }
    reply("ERR unknown command %s", cmd);
}

/* Read what stdin holds; run each complete line. Exits at end of file. */
static void service_control(void) {
    static char line[2048];
    static size_t len;
    static bool overflow;
    char chunk[1024];
    ssize_t r = read(STDIN_FILENO, chunk, sizeof chunk);
    if (r == 0) quit(0);
    if (r < 0) return;
    for (ssize_t i = 0; i < r; i++) {
        char c = chunk[i];
        if (c == '\r') continue;
        if (c != '\n') {
            if (len < sizeof line - 1)
                line[len++] = c;
            else
                overflow = true;
            continue;
        }
        line[len] = '\0';
        if (overflow)
            reply("ERR line too long");
        else
            handle_command(line);
        len = 0;
        overflow = false;
    }
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(void) {
    fprintf(stderr, "usage: simharness [--link PATH] [--speed X] [--no-reset-on-open] [--no-control] FIRMWARE.elf\n");
    exit(2);
}

/* Between slices: exchange serial bytes and control commands, and sleep
 * (in ppoll, so input still wakes us) until wall time catches up. */
static void exchange_and_wait(int64_t *wall_base) {
    struct pollfd probe = {serial_fd(), POLLIN, 0};
    poll(&probe, 1, 0);
    if (serial_service(probe.revents) && reset_on_open) {
        open_reset_at = sim_cycles() + OPEN_RESET_DELAY_CYCLES;
        serial_set_muted(true);
    }
    for (;;) {
        int64_t ahead_ns = 0;
        if (speed > 0) {
            int64_t now = wall_ns(), sim_ns = sim_ns_scaled();
            if (now - (*wall_base + sim_ns) > MAX_LAG_NS) *wall_base = now - sim_ns - MAX_LAG_NS;
            ahead_ns = *wall_base + sim_ns - now;
        }
        struct pollfd fds[2] = {
            {serial_host_open() ? serial_fd() : -1, serial_poll_events(), 0},
            {control ? STDIN_FILENO : -1, POLLIN, 0},
        };
        struct timespec ts = {ahead_ns > 0 ? ahead_ns / 1000000000LL : 0, ahead_ns > 0 ? ahead_ns % 1000000000LL : 0};
        int n = ppoll(fds, 2, &ts, NULL);
        if (n < 0 && errno != EINTR) {
            perror("harness: poll");
            quit(1);
        }
        if (n > 0 && fds[0].revents) serial_service(fds[0].revents);
        if (n > 0 && (fds[1].revents & (POLLIN | POLLHUP))) service_control();
        serial_feed();
        if (speed <= 0 || *wall_base + sim_ns_scaled() <= wall_ns()) return;
    }
}

int main(int argc, char **argv) {
    const char *elf = NULL, *link_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc)
            link_path = argv[++i];
        else if (!strcmp(argv[i], "--speed") && i + 1 < argc)
            speed = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-reset-on-open"))
            reset_on_open = false;
        else if (!strcmp(argv[i], "--no-control"))
            control = false;
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
    if (control) fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

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
    avr->vcc = avr->avcc = avr->aref = 5000; /* millivolts: the ADC reference */

    board_init(avr);
    serial_init(avr, link_path);
    reply("PTY %s", serial_pty_name());

    int64_t wall_base = wall_ns();
    for (;;) {
        uint64_t target = sim_cycles() + SLICE_CYCLES;
        uint64_t next_script = board_run_scripts(sim_cycles());
        if (next_script < target) target = next_script; /* exact button timing */
        if (open_reset_at && open_reset_at < target) target = open_reset_at;
        simulate_until(target);
        board_sample_leds();
        if (open_reset_at && sim_cycles() >= open_reset_at) {
            open_reset_at = 0;
            serial_set_muted(false);
            mcu_reset();
        }
        exchange_and_wait(&wall_base);
    }
}
