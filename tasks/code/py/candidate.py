"""The program under test's process: untrusted, and nothing it does here
decides anything. It runs solution.py (the prompt and the program, as
openai/human-eval assembles them, without the test) and answers the
tests' process (judge.py): which of the names it asks for are defined, and
each call's result, as plain data (wire.py).
"""

import os
import sys

import wire


def main():
    conn = wire.Conn(3, 4)
    # Descriptors 3 and 4 are the program's too: what it writes there is
    # its answer, read by a decoder that accepts only plain data.
    with open("solution.py") as f:
        src = f.read()
    ns = {"__builtins__": __builtins__}
    failed = None
    try:
        exec(compile(src, "solution.py", "exec"), ns)
    except BaseException as e:
        failed = e
    while True:
        raw = conn.recv_bytes()
        if raw is None:
            return
        msg = wire.decode(raw)
        if failed is not None:
            conn.send(("raise", type(failed).__name__, "while the program was loading: " + str(failed)))
            continue
        if msg[0] == "names":
            names = []
            for name in msg[1]:
                if name not in ns:
                    names.append((name, "missing", None))
                elif callable(ns[name]):
                    names.append((name, "function", None))
                else:
                    try:
                        wire.encode(ns[name])
                        names.append((name, "value", ns[name]))
                    except wire.Unencodable:
                        names.append((name, "missing", None))
            conn.send(("names", names))
            continue
        _, name, args, kwargs = msg
        try:
            result = ns[name](*args, **kwargs)
        except BaseException as e:
            try:
                why = str(e)
            except BaseException:
                why = "?"
            conn.send(("raise", type(e).__name__, why))
            continue
        try:
            conn.send(("return", result))
        except wire.Unencodable as e:
            conn.send(("unencodable", "%s (%s)" % (type(result).__name__, e)))


main()
