"""Tree of Thoughts breadth-first search for the Game of 24 (Yao et al., 2023)
against bench's program protocol: propose next steps, value each candidate,
keep the b best, four times.

It makes the decisions of bench's native `tot` (protocol=harness) with the
bundled templates game24/propose, value, value_last and cot:
  * a state is lines "a op b = c (left: ...)"; the numbers to work on are
    the "left" of its last line (the puzzle at the root);
  * propose: one sample of the propose prompt, one child per non-empty line
    (at most 64; "Possible next steps:" dropped); once 24 is left, the cot prompt plus
    "Steps:\n" and the steps so far asks for the Answer line;
  * value: n_evaluate samples of the value prompt (value_last for a state
    ending in a line without "left: "), the last line of each judged
    sure=20, likely=1, impossible=0.001 and summed; four lines without an
    answer are worth 0; a candidate equal to an earlier one in the same step
    gets 0; one draw per distinct value prompt within the item;
  * greedy selection of the b best (stable: ties keep proposal order); a
    state with an Answer line is kept but not expanded again.
The output is the best state after the last step (its Answer line is what
game24 scores).

params: b (5), n_evaluate (3), temperature (0.7), steps (4), detail (print
every state proposed with the answer).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import reasonbench as rb  # noqa: E402

SCORES = {"sure": 20.0, "likely": 1.0, "impossible": 0.001}

# At most this many lines of one propose answer become children, as in the
# native thought space: an enormous answer must not become thousands of calls.
MAX_PROPOSALS = 64


def lines_of(state):
    s = state.strip()
    return s.split("\n") if s else []


def current_numbers(puzzle, state):
    lines = lines_of(state)
    if not lines:
        return puzzle
    last = lines[-1]
    if "left: " not in last:
        return last.strip()
    return last.split("left: ", 1)[1].split(")", 1)[0].strip()


def is_final(state):
    return any(l.strip()[:7].lower() == "answer:" for l in state.split("\n"))


class Search:
    def __init__(self, item, p):
        self.item = item
        self.puzzle = item["input"]
        self.b = int(p.get("b", 5))
        self.n_evaluate = int(p.get("n_evaluate", 3))
        self.temperature = float(p.get("temperature", 0.7))
        self.steps = int(p.get("steps", 4))
        self.tmpl = {n: rb.template("game24", n) for n in ("propose", "value", "value_last", "cot")}
        self.values = {}  # value prompt -> value, one draw per prompt in this item
        self.states = []  # every state proposed, for params detail

    def propose(self, state, call):
        if current_numbers(self.puzzle, state) == "24":
            prompt = rb.render(self.tmpl["cot"], self.item) + "Steps:\n" + state
        else:
            prompt = rb.render(self.tmpl["propose"], Input=current_numbers(self.puzzle, state))
        out = rb.chat(prompt, n=1, temperature=self.temperature, call=call)[0]
        children = []
        for line in out.split("\n"):
            line = line.strip()
            if line and line.lower() != "possible next steps:":
                children.append(state + line + "\n")
                if len(children) == MAX_PROPOSALS:
                    break
        return children

    def value(self, state, call):
        lines = lines_of(state)
        if len(lines) == 4 and "answer" not in state.lower():
            return 0.0
        last = lines[-1] if lines else ""
        if lines and "left: " not in last:
            ans = last.strip()
            if ans[:7].lower() == "answer:":
                ans = ans[7:].strip()
            prompt = rb.render(self.tmpl["value_last"], Input=self.puzzle, Answer=ans)
        else:
            prompt = rb.render(self.tmpl["value"], Input=current_numbers(self.puzzle, state))
        if prompt not in self.values:
            outs = rb.chat(prompt, n=self.n_evaluate, temperature=self.temperature, call=call)
            judged = [(lines_of(o) or [""])[-1].strip().lower() for o in outs]
            self.values[prompt] = sum(SCORES.get(j, 0.0) for j in judged)
        return self.values[prompt]

    def run(self):
        beam = [("", 0.0)]
        for step in range(self.steps):
            candidates = []  # (state, value or None when it needs valuing)
            for f, (state, v) in enumerate(beam):
                if is_final(state):
                    candidates.append((state, v))
                else:
                    children = self.propose(state, "s%d/f%d" % (step, f))
                    self.states.extend(children)
                    candidates.extend((c, None) for c in children)
            seen, valued = set(), []
            for i, (state, v) in enumerate(candidates):
                if v is None:
                    v = 0.0 if state in seen else self.value(state, "s%d/c%d" % (step, i))
                seen.add(state)
                valued.append((state, v))
            # sorted() is stable: equal values keep proposal order.
            beam = sorted(valued, key=lambda sv: sv[1], reverse=True)[:self.b]
            if not beam:
                return ""
        return beam[0][0]


def main():
    try:
        item = rb.read_item()
        search = Search(item, rb.params())
        output = search.run()
    except Exception as e:
        sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
        sys.exit(1)
    if rb.flag("detail"):
        rb.answer(output, states=search.states)
    else:
        rb.answer(output)


if __name__ == "__main__":
    main()
