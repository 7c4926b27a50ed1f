"""Explanations in plain words for a move, from the rules and the network's outputs.

| module            | concept                                                    |
|-------------------|------------------------------------------------------------|
| ``reason``        | ``Reason`` (kind, points, numbers, words) and its ranking   |
| ``played``        | a move played on a copy; names of points and groups         |
| ``ladder``        | the ladder reader (ataris only, depth and node bounds)      |
| ``captures``      | capture, self-atari, snapback, a group left in atari        |
| ``threats``       | atari, save, ladder (read)                                  |
| ``connections``   | connection, cut                                             |
| ``ko``            | takes / fills the ko                                        |
| ``analysis_view`` | the engine's analysis, duck-typed, with flat points         |
| ``judgement``     | life and death, biggest point, tempo, the engine's line     |
| ``explainer``     | ``explain_move`` / ``explain_hint``: all of the above, ranked |

No language model and no I/O: the rules part needs only ``gobuddy.go``; the judgement
part reads analyses it is given (``gobuddy.ai.analysis``'s answers, or their stored
dict form). Nothing here imports ``gobuddy.ai``.
"""

from gobuddy.explain.explainer import explain_hint, explain_move
from gobuddy.explain.reason import KINDS, Reason, as_comment, as_lines, mistake_kind

__all__ = ["KINDS", "Reason", "as_comment", "as_lines", "explain_hint", "explain_move", "mistake_kind"]
