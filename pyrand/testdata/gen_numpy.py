# Writes numpy.json: numpy's legacy draws that pyrand must reproduce.
# Run: /usr/bin/python3 gen_numpy.py > numpy.json (needs numpy).
import json
import sys

import numpy as np

out = {"numpy": np.__version__}
np.random.seed(0)
out["seed0_randint_0_30_size6_x100"] = [[int(x) for x in np.random.randint(0, 30, size=6)] for _ in range(100)]
np.random.seed(12345)
out["seed12345_randint_5_1000_x50"] = [int(np.random.randint(5, 1000)) for _ in range(50)]
json.dump(out, sys.stdout)
print()
