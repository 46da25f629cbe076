# Writes python.json: CPython's own outputs that pyrand must reproduce.
# Run: python3 gen.py > python.json (standard library only).
import json
import random
import sys

out = {"python": sys.version.split()[0]}
random.seed(0)
out["seed0_uint32"] = [random.getrandbits(32) for _ in range(700)]  # past one twist of 624
random.seed(0)
out["seed0_randbelow"] = [random._inst._randbelow(n) for n in (1, 2, 3, 7, 1000, 1319, 2**31 + 5, 2**32 - 1)]
x = list(range(1319))
random.seed(0)
random.shuffle(x)
out["seed0_shuffle_1319_first100"] = x[:100]  # GSM8K's test split, as the debate reference shuffles it
x = list(range(50))
random.seed(2**40 + 7)
random.shuffle(x)
out["seed_2p40p7_shuffle_50"] = x
json.dump(out, sys.stdout)
print()
