/* serial_pty.c - see serial_pty.h for the contract. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "avr_uart.h"
#include "sim_irq.h"

#include "serial_pty.h"

#define UCSR0B_ADDR 0xC1 /* ATmega2560 data-space address of UCSR0B */
#define RXEN0_BIT 4

static avr_t *avr;
static avr_irq_t *uart_irq;
static bool uart_xoff; /* simavr's receive FIFO is full */
static int pty_fd = -1;
static char pty_name[128];
static const char *link_name; /* symlink to the pty, or NULL */
static bool host_open, muted;
static uint8_t to_avr[4096]; /* host -> UART, waiting for room */
static size_t to_avr_len;
static uint8_t to_host[1 << 16]; /* UART -> host, waiting for the pty */
static size_t to_host_len;
static struct serial_counts counts;

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    if (!host_open || muted) return; /* nobody listening: the byte is gone */
    if (to_host_len == sizeof to_host) {
        counts.dropped++; /* host not reading: a real UART would overrun too */
        return;
    }
    to_host[to_host_len++] = (uint8_t)value;
    counts.tx++;
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

void serial_init(avr_t *mcu, const char *link_path) {
    avr = mcu;
    link_name = link_path;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    /* we carry the bytes (no console echo), and never usleep() on polls */
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), 0);
    avr_irq_register_notify(uart_irq + UART_IRQ_OUTPUT, uart_out_hook, NULL);
    avr_irq_register_notify(uart_irq + UART_IRQ_OUT_XON, uart_xon_hook, NULL);
    avr_irq_register_notify(uart_irq + UART_IRQ_OUT_XOFF, uart_xoff_hook, NULL);

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
    if (link_name) {
        unlink(link_name);
        if (symlink(pty_name, link_name)) perror("harness: symlink");
    }
}

void serial_cleanup(void) {
    if (link_name) unlink(link_name);
}

const char *serial_pty_name(void) { return pty_name; }
int serial_fd(void) { return pty_fd; }
bool serial_host_open(void) { return host_open; }

short serial_poll_events(void) {
    return (short)((to_avr_len < sizeof to_avr ? POLLIN : 0) | (to_host_len ? POLLOUT : 0));
}

bool serial_service(short revents) {
    bool open_now = !(revents & POLLHUP);
    bool opened = open_now && !host_open;
    if (opened) {
        tcflush(pty_fd, TCOFLUSH); /* nothing stale for the new host */
        to_host_len = 0;
    }
    if (!open_now) to_avr_len = to_host_len = 0;
    host_open = open_now;
    if (!host_open) return false;
    if ((revents & POLLIN) && to_avr_len < sizeof to_avr) {
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
    return opened;
}

void serial_set_muted(bool m) { muted = m; }

void serial_feed(void) {
    if (muted) return;                                        /* held for the new boot */
    if (!(avr->data[UCSR0B_ADDR] & (1 << RXEN0_BIT))) return; /* held until Serial.begin() */
    size_t n = 0;
    while (n < to_avr_len && !uart_xoff) {
        avr_raise_irq(uart_irq + UART_IRQ_INPUT, to_avr[n++]);
        counts.rx++;
    }
    memmove(to_avr, to_avr + n, to_avr_len - n);
    to_avr_len -= n;
}

void serial_after_reset(void) { uart_xoff = false; }

struct serial_counts serial_counts(void) { return counts; }
