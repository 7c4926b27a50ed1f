"""A scripted GTP engine for tests: ``python scripted_engine.py SCRIPT.json``.

The JSON object says how to answer: ``genmove`` is the list of answers to successive
``genmove`` commands (then ``pass`` forever), ``kgs-genmove_cleanup`` the same for
that command (known only when given); ``final_score`` and ``final_status_list`` are
fixed answers, or lists of successive ones, the last repeated (``null`` -> ``? unknown
command``);
``refuse_play`` is a list of vertices whose ``play`` is refused; ``hang_on`` is a
command name after which the engine never answers again; ``exit_on`` one at which it
exits; ``unknown`` a list of command names answered ``? unknown command``;
``stderr_bytes`` is written to stderr before every answer; ``chatter`` is a
line printed to stdout before every answer (not GTP: clients must skip it); ``id``
true echoes a numeric command id in answers. Everything else is
answered with an empty success.
"""

import json
import sys
import time

script = json.loads(open(sys.argv[1]).read())
moves = list(script.get("genmove", []))
cleanup = list(script.get("kgs-genmove_cleanup") or [])
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    ident = ""
    if words[0].isdigit():
        ident, words = words[0], words[1:]
    if not script.get("id"):
        ident = ""
    name = words[0]
    if script.get("chatter"):
        print(script["chatter"], flush=True)
    if script.get("stderr_bytes"):
        sys.stderr.write("x" * script["stderr_bytes"] + "\n")
        sys.stderr.flush()
    if name == script.get("hang_on"):
        while True:
            time.sleep(60)
    if name == script.get("exit_on"):
        sys.exit(3)
    if name == "quit":
        print("=" + ident + "\n", flush=True)
        break
    if name in script.get("unknown", []):
        answer = "? unknown command"
    elif name == "genmove":
        answer = "= " + (moves.pop(0) if moves else "pass")
    elif name == "play" and words[2].upper() in script.get("refuse_play", []):
        answer = "? illegal move"
    elif name == "kgs-genmove_cleanup" and "kgs-genmove_cleanup" in script:
        answer = "= " + (cleanup.pop(0) if cleanup else "pass")
    elif name == "known_command":
        answer = "= " + ("true" if words[1] in script or words[1] in ("genmove", "play") else "false")
    elif name in ("final_score", "final_status_list"):
        value = script.get(name)
        if isinstance(value, list):
            value = value.pop(0) if len(value) > 1 else value[0]
        answer = "? unknown command" if value is None else "= " + value
    elif name == "name":
        answer = "= " + script.get("name", "scripted")
    else:
        answer = "="
    print(answer[0] + ident + answer[1:] + "\n", flush=True)
