"""A strategy in ten lines: five chains of thought, the most common Answer line."""
import collections, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import reasonbench as rb

item = rb.read_item()
prompt = rb.render(rb.template(item["task"], "cot"), item)   # bench's own cot prompt
chains = rb.chat(prompt, n=5, temperature=0.7)
answers = [l.strip() for c in chains for l in c.splitlines()[-1:] if l.lower().startswith("answer:")]
rb.answer(collections.Counter(answers).most_common(1)[0][0] if answers else chains[0])
