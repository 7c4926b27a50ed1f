"""The serial link to the board's firmware: its protocol, reading lines, the port, and what the board shows."""
