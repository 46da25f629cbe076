# A re-implementation, for reasonbench's tests, of what
# composable-models/llm_multiagent_debate's gsm/eval_gsm.py computes
# (compute_accuracy over each question's agents' last answers), written
# from its description in docs/debate.md; none of its code. Prints the
# per-question verdicts and the mean as JSON.
# Usage: python3 eval_standin.py GENERATED_JSON
import json
import re
import sys


def last_number(text):
    found = re.findall(r"\d+\.?\d*", text)
    return found[-1] if found else None


def braced(text):
    result = None
    for inner in reversed(re.findall(r"\{([0-9.,$]*)\}", text)):
        result = re.sub(r"[^0-9.]", "", inner)
        if result:
            break
    return result


def prediction(text):
    p = braced(text)
    return last_number(text) if p is None else p


def plurality(values):
    best, best_count = values[0], 0
    for v in values:
        if values.count(v) > best_count:
            best, best_count = v, values.count(v)
    return best


def verdict(gold_text, outputs):
    gold = last_number(gold_text)
    pred = plurality([prediction(o) for o in outputs])
    if pred is None:
        return 1
    return 1 if float(gold) == float(pred) else 0


generated = json.load(open(sys.argv[1]))
verdicts = [verdict(gold, [ctx[-1]["content"] for ctx in contexts]) for contexts, gold in generated.values()]
print(json.dumps({"verdicts": verdicts, "accuracy": sum(verdicts) / len(verdicts)}))
