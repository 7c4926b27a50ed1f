/* board_model.c - see board_model.h for the contract. */
#include <string.h>
#include <strings.h>

#include "avr_adc.h"
#include "avr_ioport.h"
#include "sim_irq.h"

#include "board_model.h"

struct button {
    const char *name;
    uint8_t bit;
    bool pressed;
    avr_irq_t *irq;
    int nsteps, step; /* script */
    bool levels[BOARD_SCRIPT_MAX];
    uint64_t durations[BOARD_SCRIPT_MAX];
    uint64_t next_at; /* cycle at which levels[step] applies; 0 = no script */
};

struct led {
    char port;
    uint8_t bit;
};

static avr_t *avr;
static uint16_t sensor_mv[GB_SENSOR_COUNT];
static uint16_t spare_mv;
static int16_t mux_sensor[GB_MUX_COUNT][GB_MUX_CHANNELS]; /* -1 = spare channel */
static avr_irq_t *adc_irq;
static struct button buttons[GB_BUTTON_COUNT];
static struct led row_leds[GB_BOARD_SIZE], col_leds[GB_BOARD_SIZE];

static avr_ioport_state_t port_state(char port) {
    avr_ioport_state_t st;
    memset(&st, 0, sizeof st);
    avr_ioctl(avr, AVR_IOCTL_IOPORT_GETSTATE(port), &st);
    return st;
}

/* ---- sensors ------------------------------------------------------------ */

/* A conversion starts: put the addressed sensor's voltage on that ADC input. */
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
    avr_raise_irq(adc_irq + ADC_IRQ_ADC0 + e.mux.src, sensor >= 0 ? sensor_mv[sensor] : spare_mv);
}

void board_set_sensor_mv(int index, uint16_t mv) {
    if (index >= 0 && index < GB_SENSOR_COUNT) sensor_mv[index] = mv;
}

void board_set_spare_mv(uint16_t mv) { spare_mv = mv; }

/* ---- buttons -------------------------------------------------------------- */

/* Present every level on its pin, and make the port report the same levels
 * when the firmware rewrites PORT/DDR (simavr's "external" pull). Forced past
 * simavr's same-value filter because a reset clears the PIN registers. */
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
        avr_raise_irq(buttons[i].irq, buttons[i].pressed ? 0 : 1); /* pressed = low */
    }
}

void board_after_reset(void) { apply_buttons(); }

int board_button(const char *name) {
    for (int i = 0; i < GB_BUTTON_COUNT; i++)
        if (!strcasecmp(name, buttons[i].name)) return i;
    return -1;
}

void board_set_button(int button, bool pressed) {
    buttons[button].next_at = 0;
    buttons[button].pressed = pressed;
    apply_buttons();
}

void board_script_button(int button, const bool *levels, const uint64_t *durations, int n, uint64_t now) {
    struct button *b = &buttons[button];
    memcpy(b->levels, levels, (size_t)n * sizeof *levels);
    memcpy(b->durations, durations, (size_t)n * sizeof *durations);
    b->nsteps = n;
    b->step = 0;
    b->next_at = now ? now : 1; /* 0 means "no script" */
    board_run_scripts(now);
}

uint64_t board_run_scripts(uint64_t now) {
    uint64_t next = UINT64_MAX;
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

/* ---- LEDs ------------------------------------------------------------------ */

/* Bit r = row r, bit 9 + c = column c, bit 18 = heartbeat. */
static uint32_t led_sample, led_settled;

void board_sample_leds(void) {
    /* one state read per port, not per pin: this runs every millisecond */
    avr_ioport_state_t cache[8];
    char names[8];
    int ncache = 0;
    uint32_t now = 0;
    for (int i = 0; i < 2 * GB_BOARD_SIZE + 1; i++) {
        struct led l = i < GB_BOARD_SIZE       ? row_leds[i]
                       : i < 2 * GB_BOARD_SIZE ? col_leds[i - GB_BOARD_SIZE]
                                               : (struct led){GB_STR(GB_HEARTBEAT_PORT)[0], GB_HEARTBEAT_BIT};
        int k = 0;
        while (k < ncache && names[k] != l.port) k++;
        if (k == ncache) {
            names[k] = l.port;
            cache[k] = port_state(l.port);
            ncache++;
        }
        /* lit = the MCU drives the pin high (an input drives nothing) */
        if (((cache[k].port & cache[k].ddr) >> l.bit) & 1) now |= 1ul << i;
    }
    if (now == led_sample) led_settled = now;
    led_sample = now;
}

int board_leds(char rows[GB_BOARD_SIZE + 1], char cols[GB_BOARD_SIZE + 1]) {
    for (int i = 0; i < GB_BOARD_SIZE; i++) {
        rows[i] = (char)('0' + ((led_settled >> i) & 1));
        cols[i] = (char)('0' + ((led_settled >> (GB_BOARD_SIZE + i)) & 1));
    }
    rows[GB_BOARD_SIZE] = cols[GB_BOARD_SIZE] = '\0';
    return (led_settled >> (2 * GB_BOARD_SIZE)) & 1;
}

/* ---- wiring ------------------------------------------------------------------ */

void board_init(avr_t *mcu) {
    avr = mcu;
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
}
