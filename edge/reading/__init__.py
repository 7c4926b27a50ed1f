"""From stable boards and button presses to moves, problems and LED patterns (the reconciler)."""
