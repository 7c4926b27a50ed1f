"""From raw sensor frames to classified, stable boards; sensor faults and health."""
