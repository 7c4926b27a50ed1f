"""Small test positions with known answers (5x5, nearly finished)."""

# Black owns A-C, white D-E; C5 is the one dame: whoever takes it wins with komi 4.5.
ONE_DAME = """
. X . O .
X X X O O
. X X O .
X X X O O
. X X O .
"""
# The white stone on B3 has one liberty (A3).
CAPTURE = """
. X . O .
X X X O O
. O X O .
X X X O O
. X . O .
"""
# The black stone on D3 is in atari (C3); C3 connects it.
ATARI = """
. X . O .
X X X O O
. X . X O
X X X O O
. X . O .
"""
# Two eyes each; filling one of its own eyes kills black.
EYES = """
X X X X X
X . X . X
X X X X X
O O O O O
O . O . O
"""
