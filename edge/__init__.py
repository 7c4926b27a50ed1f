"""The edge agent (``python -m edge``): one physical board on the bus.

| part          | what it holds                                                                    |
|---------------|----------------------------------------------------------------------------------|
| top level     | the agent (``agent``) and its halves: buttons, engine requests and answers,       |
|               | the teacher, the count at the end, status, players; ``game``: the board's game    |
| ``link``      | the serial link to the firmware: protocol lines, the port, what the board shows   |
| ``sensing``   | raw frames to classified, stable boards; sensor faults and health                 |
| ``calibration`` | the light levels, the stored calibration per board, the procedure at the board |
| ``reading``   | stable boards and buttons to moves, problems and LED patterns (the reconciler)     |
| ``journal``   | the game as wire events, the offline queue, adopting a game after a restart       |
| ``simulation``| the simulated board: sensor model, room transients, simulator, pty board, players |

The edge imports ``gobuddy.go`` and ``gobuddy.bus``, never engine code (``gobuddy.ai``).
"""
