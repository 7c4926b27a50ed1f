"""The board's light calibration: the levels, the stored one per board, the procedure at the board."""
