/*
 * commands.h - host lines in, replies out (PROTOCOL.md, "Host to board").
 *
 * commands_poll() reads whatever the UART holds and executes at most one
 * complete line per call. Every non-empty line gets exactly one reply line,
 * in order: a specific answer (HELLO, PONG, STATUS), "OK <CMD> ...", or
 * "ERR <CODE> <reason>". Malformed input of any kind (too long, non-printable
 * bytes, bad checksum, unknown command, bad arguments) is answered with ERR
 * and changes nothing; the line buffer cannot overflow (excess bytes are
 * counted and dropped until the next '\n').
 */
#ifndef GOBUDDY_COMMANDS_H
#define GOBUDDY_COMMANDS_H

void commands_begin(void);
void commands_poll(void);

/* Queue the HELLO line (sent at boot and in reply to HELLO). */
void commands_send_hello(void);

#endif /* GOBUDDY_COMMANDS_H */
