"""The simulated board: sensor model, room transients, simulator, the pty board and its auto-player."""
