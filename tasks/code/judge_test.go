package code

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// TestJudge: how the isolated rule's judge treats what crosses between
// the test and the program, one file-task row per case.
func TestJudge(t *testing.T) {
	cases := []struct {
		name, test, code string
		correct          bool
		reason           string
	}{
		{"keywords, and a tuple stays a tuple",
			"def check(c):\n    assert c(x=2) == (2, [2])\n    assert type(c(1)[1]) is list\n",
			"def f(x):\n    return (x, [x])\n", true, ""},
		{"floats are exact",
			"def check(c):\n    assert c(0.1) == 0.30000000000000004\n    assert c(0.1) != 0.3\n",
			"def f(x):\n    return x + x + x\n", true, ""},
		{"the program's exception reaches the test as itself",
			"def check(c):\n    try:\n        c(-1)\n    except ValueError as e:\n        assert 'negative' in str(e)\n    else:\n        assert False\n",
			"def f(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n", true, ""},
		{"an exception of the program's own class is a ProgramError",
			"def check(c):\n    c(1)\n",
			"class Oops(Exception):\n    pass\ndef f(x):\n    raise Oops('no')\n", false, "ProgramError: Oops: no"},
		{"a constant the program defines, read by the test",
			"def check(c):\n    assert c(1) == LIMIT + 1\n",
			"LIMIT = 41\ndef f(x):\n    return x + LIMIT\n", true, ""},
		{"a generator cannot cross",
			"def check(c):\n    assert list(c(2)) == [0, 1]\n",
			"def f(x):\n    return (i for i in range(x))\n", false, "returned generator"},
		{"a function as an argument cannot cross",
			"def check(c):\n    assert c(lambda: 1) == 1\n",
			"def f(g):\n    return g()\n", false, "argument cannot cross"},
		{"a program that fails to load",
			"def check(c):\n    assert c(1) == 1\n",
			"def f(x):\n    return x\nraise KeyError('at import')\n", false, "while the program was loading"},
		{"an early exit is caught by no test",
			"def check(c):\n    for i in range(3):\n        try:\n            c(i)\n        except:\n            pass\n",
			"import os\ndef f(x):\n    os._exit(0)\n", false, "LostProgram"},
		{"a name neither the prompt nor the program defines",
			"def check(c):\n    assert c(1) == helper(1)\n",
			"def f(x):\n    return x\n", false, "NameError: name 'helper' is not defined"},
		{"a program that never answers is a timeout",
			"def check(c):\n    assert c(1) == 1\n",
			"def f(x):\n    while True:\n        pass\n", false, "timeout"},
	}
	var rows []byte
	for i, c := range cases {
		row, _ := json.Marshal(map[string]string{"task_id": c.name, "prompt": "def f(x):\n    \"\"\"case " + string(rune('a'+i)) + "\"\"\"\n",
			"entry_point": "f", "test": c.test})
		rows = append(append(rows, row...), '\n')
	}
	path := filepath.Join(t.TempDir(), "judge.jsonl")
	if err := os.WriteFile(path, rows, 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bound(t, task)
	b.limits = sandbox.Limits{Wall: 2 * time.Second, CPU: 2 * time.Second}
	// A prompt that is a bare signature: the judge runs it as a stub.
	bare := b.problems[0]
	bare.Prompt = "def f(x):\n"
	if s := b.Score(tasks.Instance{Key: bare.ID, Data: bare}, "    return (x, [x])\n"); !s.Correct {
		t.Errorf("a body after a bare signature: %+v", s)
	}
	insts, _ := b.Instances()
	for i, c := range cases {
		s := b.Score(insts[i], "```python\n"+c.code+"```")
		if s.Correct != c.correct || !strings.Contains(s.Reason, c.reason) {
			t.Errorf("%s: correct=%v %q, want %v and %q", c.name, s.Correct, s.Reason, c.correct, c.reason)
		}
	}
}
