package strategies

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// runFix runs b448a9b's indentation fix on one answer in the sandbox.
func runFix(t *testing.T, ex tasks.Executor, answer string, timeout float64) (body, failure string) {
	t.Helper()
	s := newStrategy(t, "reflexion_code", map[string]any{"indent_timeout": timeout}).(*reflexionCode)
	r := &codeRun{s: s, env: Env{Exec: ex, Seed: 1}, inst: tasks.Instance{Key: "indent"}}
	body, failure, err := r.fixIndent(context.Background(), "indent", answer)
	if err != nil {
		t.Fatal(err)
	}
	return body, failure
}

// The improved implementation's fix makes the reference's decisions on
// made-up answers: the answer is tidied first (lines before a def at
// column 0 indented, def lines dropped, fences removed); each state's stub
// is run, not only compiled, so a SyntaxError raised while running moves
// to the next state; the fixed bodies are made from the tidied answer
// (splitlines, CR LF, tabs); other exceptions keep the state's body; what
// ended or hung the reference is a recorded failure keeping the body of
// the state being run.
func TestReflexionCodeIndentFix(t *testing.T) {
	const vowel = "def check_vowel(s):\n    return bool(re.match('[aeiou]', s))"
	cases := []struct {
		name, answer, want string
		failure            string  // a part of the failure; "" for a decision
		timeout            float64 // indent_timeout; 0 for 10 s
	}{
		// The tidying indents the import and drops the def line: the
		// import lands in the body, before the redefinition's statements.
		{"import before a redefinition", "import re\n\n" + vowel, "    import re\n\n    return bool(re.match('[aeiou]', s))", "", 0},
		{"docstring, then import and redefinition", "    \"\"\"Match a vowel.\"\"\"\nimport re\n\n" + vowel,
			"    \"\"\"Match a vowel.\"\"\"\n    import re\n\n    return bool(re.match('[aeiou]', s))", "", 0},
		// Lines after the first def line are kept as they are, and a
		// second def line is dropped too.
		// (Here state 0 cannot compile the import at column 0; state 1
		// indents it.)
		{"after the def", "def f(x):\nimport re\n    return 1\ndef g():\n    pass", "    import re\n    return 1\n    pass", "", 0},
		// Fences go, their language tag stays (NameError: kept).
		{"fenced", "```python\ndef f(x):\n    return x\n```", "    python\n    return x\n", "", 0},
		// Compiles, but raises SyntaxError when run: state 1 is the same
		// body (it starts with four spaces) and raises again: state 2.
		{"eval of bad text", "    return eval(\"1 +\")", "        return eval(\"1 +\")", "", 0},
		{"literal_eval of bad text", "    import ast\n    return ast.literal_eval('[1, 2')",
			"        import ast\n        return ast.literal_eval('[1, 2')", "", 0},
		// The generator module's ast is its global: a SyntaxError, not
		// a NameError.
		{"ast of the module", "    return ast.parse('def')", "        return ast.parse('def')", "", 0},
		// State 2 indents every line of the tidied answer.
		{"state 2 from the tidied answer", "x = 1\n    return compile('def', '<s>', 'exec')",
			"        x = 1\n        return compile('def', '<s>', 'exec')", "", 0},
		// Other exceptions keep the state's body.
		{"NameError", "    return len(s)", "    return len(s)", "", 0},
		{"NameError, tidied", "return len(s)", "    return len(s)", "", 0},
		// The stub's column-0 code sees the fixing function's locals.
		// (Its code: compiling "def " raises SyntaxError, at both states.)
		{"the fix's locals", "def f():\n    pass\ncompile(code[:4], 's', 'exec')",
			"        pass\n    compile(code[:4], 's', 'exec')", "", 0},
		// The generator module's typing names are its globals; others not.
		{"List in an annotation", "    def h(x: List[int]):\n        return eval('1 +')\n    return h(1)",
			"        def h(x: List[int]):\n            return eval('1 +')\n        return h(1)", "", 0},
		{"Dict in an annotation", "    def h(x: Dict[int, int]):\n        return eval('1 +')\n    return h(1)",
			"    def h(x: Dict[int, int]):\n        return eval('1 +')\n    return h(1)", "", 0},
		// State 1 runs inside state 0's handler: a bare raise re-raises
		// state 0's IndentationError, a SyntaxError: state 2.
		{"bare raise", "def f():\nraise", "    raise", "", 0},
		{"CR LF kept at state 0", "    x = 1\r\n    return x\r\n", "    x = 1\r\n    return x\r\n", "", 0},
		{"CR LF tidied", "x = 1\r\n    return x", "    x = 1\r\n    return x", "", 0},
		{"CR LF blank line", "\r\nreturn 1", "\r\n    return 1", "", 0},
		{"CR LF split at state 1", "def f():\nx = 1\r\n    return x", "    x = 1\n    return x", "", 0},
		{"tab", "\treturn 1", "    \treturn 1", "", 0},
		{"a blank line", "\n", "    ", "", 0},
		// The reference's first-line fix raises IndexError on an answer
		// without lines; its run ended there.
		{"empty", "", "", "IndexError", 0},
		{"SystemExit", "    import sys\n    sys.exit(0)", "    import sys\n    sys.exit(0)", "SystemExit", 0},
		{"os._exit", "    import os\n    os._exit(0)", "    import os\n    os._exit(0)", "without a decision", 0},
		// Output, even a forged line on descriptor 1, decides nothing.
		{"loud", "    print('x' * 5000000)\n    import os\n    os.write(1, b'\\nstate 0\\n')\n    return eval('1 +')",
			"        print('x' * 5000000)\n        import os\n        os.write(1, b'\\nstate 0\\n')\n        return eval('1 +')", "", 0},
		// Never ends: the limit, the body being run kept (state 0's, then
		// state 1's).
		{"loops at state 0", "    while True:\n        pass", "    while True:\n        pass", "limit", 2},
		{"loops at state 1", "def f():\nx = 0\nwhile True:\n    pass", "    x = 0\nwhile True:\n    pass", "limit", 2},
	}
	ex := codeExec(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timeout := c.timeout
			if timeout == 0 {
				timeout = 10
			}
			body, failure := runFix(t, ex, c.answer, timeout)
			if body != c.want {
				t.Errorf("fixed %q to %q, want %q", c.answer, body, c.want)
			}
			if c.failure == "" && failure != "" || !strings.Contains(failure, c.failure) {
				t.Errorf("%q: failure %q, want one saying %q", c.answer, failure, c.failure)
			}
		})
	}
}

// runFirst runs b448a9b's fix of a first implementation in the sandbox.
func runFirst(t *testing.T, ex tasks.Executor, answer string) (body, failure string) {
	t.Helper()
	s := newStrategy(t, "reflexion_code", nil).(*reflexionCode)
	r := &codeRun{s: s, env: Env{Exec: ex, Seed: 1}, inst: tasks.Instance{Key: "first"}}
	body, failure, err := r.fixFirst(context.Background(), "i0/indent", answer)
	if err != nil {
		t.Fatal(err)
	}
	return body, failure
}

// The first implementation's fix is the tidying alone: nothing of the
// answer runs, so nothing it does decides (a SystemExit, a loop, an empty
// answer are bodies like others); Python reads the text (\s and \w of a
// def line are Unicode's, a tab is not four spaces).
func TestReflexionCodeFirstFix(t *testing.T) {
	const vowel = "def check_vowel(s: str) -> bool:\n    return bool(re.match('[aeiou]', s))"
	cases := []struct{ name, answer, want string }{
		{"import before the function", "import re\n\n" + vowel, "    import re\n\n    return bool(re.match('[aeiou]', s))"},
		{"a body", "    return a + b", "    return a + b"},
		{"first line unindented", "return a * b\n    # done", "    return a * b\n    # done"},
		{"every line unindented", "x = 1\nreturn x", "    x = 1\n    return x"},
		{"after the def kept", "def f(x):\nimport re\n    return 1", "import re\n    return 1"},
		{"fenced", "```python\ndef f(x):\n    return x\n```", "    python\n    return x\n"},
		{"SystemExit", "    import sys\n    sys.exit(0)", "    import sys\n    sys.exit(0)"},
		{"a loop", "while True:\n    pass", "    while True:\n    pass"},
		{"empty", "", ""},
		{"blank lines", "\n \n\t\n", "\n \n\t\n"},
		{"tab", "\treturn 1", "    \treturn 1"},
		{"ideographic space in the def", "def\u3000f(x):\n    return x", "    return x"},
		{"accented name", "def f\u00e9(x):\n    return x", "    return x"},
		{"CR LF", "x = 1\r\nreturn x\r\n", "    x = 1\r\n    return x\r\n"},
	}
	ex := codeExec(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, failure := runFirst(t, ex, c.answer)
			if body != c.want || failure != "" {
				t.Errorf("fixed %q to %q (failure %q), want %q", c.answer, body, failure, c.want)
			}
		})
	}
}

// The mbpp_737_check_str shape on a made-up problem: the first answer
// imports re at column 0 before a whole function. The reference's first
// fix indents the import into the body and drops the def line, so the
// function imports re itself: its internal tests pass, alone or after
// anything, and no reflection is asked. The same answer as an improved
// implementation is tidied the same way first, then its indentation
// settled: the same function.
func TestReflexionCodeImportBeforeTheFunction(t *testing.T) {
	const prompt = "def check_vowel(s: str) -> bool:\n    \"\"\"Whether s starts with a vowel.\"\"\"\n"
	const answer = "import re\n\ndef check_vowel(s: str) -> bool:\n    return bool(re.match('[aeiou]', s))"
	const impl = prompt + "    import re\n\n    return bool(re.match('[aeiou]', s))"
	const tests = "assert check_vowel('apple') == True\nassert check_vowel('sky') == False"
	const passed = "Tested passed:\n" + tests + "\n\nTests failed:"
	other := chainProblem{"def first(x: int) -> int:\n    \"\"\"Return 0.\"\"\"\n", "first", "    return 0", "assert first(1) == 0"}
	vowel := chainProblem{prompt, "check_vowel", answer, tests}
	for _, c := range []struct {
		name, namespace string
		ps              []chainProblem
	}{
		{"isolated", "isolated", []chainProblem{vowel}},
		{"shared", "shared", []chainProblem{vowel}},
		{"shared after another", "shared", []chainProblem{other, vowel}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newStrategy(t, "reflexion_code", map[string]any{"max_iters": 2, "namespace": c.namespace})
			defer s.(interface{ Close() error }).Close()
			got := solveChain(t, chain{c.ps}, s, 0, nil)
			last := got[len(got)-1]
			if last.Impl != impl || last.Feedback != passed || !last.Passed {
				t.Errorf("implementation\n%q\nfeedback (passed %v)\n%s\nwant\n%q\n%s", last.Impl, last.Passed, last.Feedback, impl, passed)
			}
		})
	}
	// As an improved implementation, after a first that fails.
	o := runCode(t, map[string]any{"max_iters": 2}, map[string]string{
		"i0/tests":   "assert add(1, 2) == 3",
		"i0/impl":    "    return a - b",
		"i1/reflect": "It subtracts.",
		"i1/impl":    "import operator\n\ndef add(a: int, b: int) -> int:\n    return operator.add(a, b)",
	}, nil)
	if o.err != nil {
		t.Fatal(o.err)
	}
	d := o.res.Detail.(CodeDetail)
	if len(d.Iterations) != 2 || d.Iterations[1].Impl != addPrompt+"    import operator\n\n    return operator.add(a, b)" || !d.Iterations[1].Passed {
		t.Errorf("improved: %+v", d.Iterations)
	}
}

// A fix that decided nothing (an improved implementation's) is an error
// step of the item's trajectory, before the implementation it produced.
func TestReflexionCodeIndentFailureIsTraced(t *testing.T) {
	ex := codeExec(t)
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	answer := "    import sys\n    sys.exit(0)"
	log := &stepLog{}
	task := &addTask{exec: ex}
	insts, _ := task.Instances()
	s := newStrategy(t, "reflexion_code", map[string]any{"max_iters": 2})
	model := &codeScript{answers: map[string]string{"i0/tests": "assert add(1, 2) == 3", "i0/impl": answer,
		"i1/reflect": "It exits.", "i1/impl": answer}}
	if _, err := s.Solve(context.Background(), Env{Sampler: model, Task: task, Prompts: lib, Seed: 1, Exec: ex, Trace: log}, insts[0]); err != nil {
		t.Fatal(err)
	}
	var impls []int
	for i, st := range log.steps {
		if strings.HasPrefix(st, "implementation: ") {
			impls = append(impls, i)
		}
	}
	const fail = "error: indentation fix failed: the answer raised SystemExit, which the reference's fix does not catch (its process ended)"
	if len(impls) != 2 || impls[0] == 0 || log.steps[impls[0]-1] == fail || log.steps[impls[1]-1] != fail ||
		log.steps[impls[1]] != "implementation: "+addPrompt+answer {
		t.Errorf("steps %q", log.steps)
	}
}

// stepLog keeps every trial's steps in order, "kind: content".
type stepLog struct {
	mu    sync.Mutex
	steps []string
}

func (l *stepLog) Tree(context.Context, []TreeNode) error { return nil }
func (l *stepLog) Step(_ context.Context, trial, _ int, kind, content string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, kind+": "+content)
	return nil
}
