"""The hidden tests' process: trusted, and the only one that decides.

It runs the prompt (its imports and helper functions, poly and
encode_cyclic among them) and the hidden test in a namespace of its own.
The program under test runs in another sandbox (candidate.py); each name
the test uses that the program defines is here a proxy: a call sends the
arguments as plain data (wire.py) and returns the program's answer
decoded as plain data, or raises the exception the program raised. No
object of the program's, and no code of it, ever runs here. The verdict
is the line written at the end, to this process's own standard output.
"""

import ast
import builtins
import json
import os
import sys

import wire

# Exceptions of the program's that the test sees as themselves (a test may
# expect one); any other is a ProgramError. Never a BaseException that is
# not an Exception (SystemExit would end this process as a success).
PASSED_ON = {
    c.__name__: c
    for c in (
        ArithmeticError, AssertionError, AttributeError, EOFError, IndexError, KeyError,
        LookupError, MemoryError, NameError, NotImplementedError, OSError, OverflowError,
        RecursionError, RuntimeError, TypeError, UnboundLocalError, UnicodeError,
        UnicodeDecodeError, UnicodeEncodeError, ValueError, ZeroDivisionError, TimeoutError,
    )
}


class ProgramError(Exception):
    """The program raised an exception the test does not see as its own."""


class LostProgram(BaseException):
    """The program broke the protocol or ended: nothing it says counts
    after this, and no test can catch it (it is no Exception)."""


class Program:
    def __init__(self, conn):
        self.conn = conn
        self.lost = None

    def ask(self, msg, answers):
        if self.lost:
            raise LostProgram(self.lost)
        try:
            self.conn.send(msg)
            raw = self.conn.recv_bytes()
            if raw is None:
                raise wire.WireError("the program ended without answering")
            reply = wire.decode(raw)
        except wire.Unencodable as e:
            # The test's own argument: this call fails, the program is fine.
            raise ProgramError("an argument cannot cross to the program: %s" % e) from None
        except (wire.WireError, OSError) as e:
            self.lost = str(e)
            raise LostProgram(self.lost) from None
        if not isinstance(reply, tuple) or not reply or reply[0] not in answers:
            self.lost = "the program answered out of turn"
            raise LostProgram(self.lost)
        kind = reply[0]
        if kind == "raise":
            if len(reply) != 3 or type(reply[1]) is not str or type(reply[2]) is not str:
                self.lost = "a malformed exception"
                raise LostProgram(self.lost)
            cls = PASSED_ON.get(reply[1])
            if cls is None:
                raise ProgramError("%s: %s" % (reply[1], reply[2][:500]))
            try:
                e = cls(reply[2][:500])
            except Exception:
                e = ProgramError("%s: %s" % (reply[1], reply[2][:500]))
            raise e
        if kind == "unencodable":
            raise ProgramError("the program returned %s" % (reply[1] if len(reply) > 1 and type(reply[1]) is str else "a value that cannot cross"))
        return reply

    def proxy(self, name):
        def call(*args, **kwargs):
            reply = self.ask(("call", name, args, kwargs), ("return", "raise", "unencodable"))
            if len(reply) != 2:
                self.lost = "a malformed answer"
                raise LostProgram(self.lost)
            return reply[1]

        call.__name__ = call.__qualname__ = name
        return call


def wanted(test, entry, ns):
    """The entry point and every other name the test reads that neither
    the prompt nor the builtins define: the program may define them."""
    names = {entry}
    for node in ast.walk(ast.parse(test)):
        if isinstance(node, ast.Name) and node.id not in ns and not hasattr(builtins, node.id):
            names.add(node.id)
    return sorted(names)


def main():
    marker = sys.stdin.readline().strip()
    out = os.fdopen(os.dup(1), "w")
    with open("problem.json") as f:
        prob = json.load(f)
    os.remove("problem.json")
    prog = Program(wire.Conn(3, 4))
    ns = {"__builtins__": builtins}
    try:
        prompt = compile(prob["prompt"], "prompt.py", "exec")
    except SyntaxError:
        # A bare signature, which the program's body was to continue.
        prompt = compile(prob["prompt"].rstrip() + "\n    pass\n", "prompt.py", "exec")
    exec(prompt, ns)
    reply = prog.ask(("names", wanted(prob["test"], prob["entry_point"], ns)), ("names", "raise"))
    if len(reply) != 2 or type(reply[1]) is not list:
        raise LostProgram("a malformed list of names")
    asked = set(wanted(prob["test"], prob["entry_point"], ns))
    for item in reply[1]:
        if type(item) is not tuple or len(item) != 3 or item[0] not in asked:
            # Only names asked for, once each: never the prompt's helpers,
            # which the test trusts to make its inputs.
            raise LostProgram("a name not asked for, or twice")
        asked.discard(item[0])
        name, kind, value = item
        if kind == "function":
            ns[name] = prog.proxy(name)
        elif kind == "value":
            ns[name] = value
        elif kind == "missing" and name == prob["entry_point"]:
            ns.pop(name, None)  # the prompt's stub must not stand in for it
    test = prob["test"]
    if prob["call_check"]:
        test += "\ncheck(%s)\n" % prob["entry_point"]
    exec(compile(test, "test.py", "exec"), ns)
    if prog.lost:  # a test that caught what LostProgram stands for
        raise LostProgram(prog.lost)
    out.write("\n" + marker + " finished\n")
    out.flush()


main()
