package strategies

import (
	"context"
	"reflect"
	"strings"
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

// The indentation fix makes the reference's decisions on made-up answers:
// each state's stub is run, not only compiled, so a SyntaxError raised
// while running moves to the next state; the fixed bodies are made from
// the answer as written (splitlines, CR LF, tabs); other exceptions keep
// the state's body; what ended or hung the reference is a recorded
// failure keeping the body of the state being run.
func TestReflexionCodeIndentFix(t *testing.T) {
	const vowel = "def check_vowel(s):\n    return bool(re.match('[aeiou]', s))"
	cases := []struct {
		name, answer, want string
		failure            string  // a part of the failure; "" for a decision
		timeout            float64 // indent_timeout; 0 for 10 s
	}{
		// State 0 cannot compile (import re at column 0 after the stub's
		// def); state 1 indents only the first line, which compiles and
		// runs, so the import lands in the stub and the redefinition
		// stays at column 0 without it.
		{"import before a redefinition", "import re\n\n" + vowel, "    import re\n\n" + vowel, "", 0},
		// An indented first line: state 0 compiles and runs, the import
		// stays at column 0, beside the redefinition.
		{"docstring, then import and redefinition", "    \"\"\"Match a vowel.\"\"\"\nimport re\n\n" + vowel,
			"    \"\"\"Match a vowel.\"\"\"\nimport re\n\n" + vowel, "", 0},
		// Compiles, but raises SyntaxError when run: state 1 is the same
		// body (it starts with four spaces) and raises again: state 2.
		{"eval of bad text", "    return eval(\"1 +\")", "        return eval(\"1 +\")", "", 0},
		{"literal_eval of bad text", "    import ast\n    return ast.literal_eval('[1, 2')",
			"        import ast\n        return ast.literal_eval('[1, 2')", "", 0},
		// State 2 indents every line of the answer, not of state 1's body.
		{"state 2 from the answer", "x = 1\n    return compile('def', '<s>', 'exec')",
			"    x = 1\n        return compile('def', '<s>', 'exec')", "", 0},
		// Other exceptions keep the state's body: NameError at state 0,
		// and at state 1 (with the first-line fix's trailing newline).
		{"NameError", "    return len(s)", "    return len(s)", "", 0},
		{"NameError after the first-line fix", "return len(s)", "    return len(s)\n", "", 0},
		// The locals of the exec are not its globals: a helper defined at
		// column 0 is invisible inside the stub (NameError: kept).
		{"helper at column 0", "    return helper()\ndef helper():\n    return eval('1 +')",
			"    return helper()\ndef helper():\n    return eval('1 +')", "", 0},
		// The generator module's typing names are its globals; others not.
		{"List in an annotation", "    def h(x: List[int]):\n        return eval('1 +')\n    return h(1)",
			"        def h(x: List[int]):\n            return eval('1 +')\n        return h(1)", "", 0},
		{"Dict in an annotation", "    def h(x: Dict[int, int]):\n        return eval('1 +')\n    return h(1)",
			"    def h(x: Dict[int, int]):\n        return eval('1 +')\n    return h(1)", "", 0},
		// State 1 runs inside state 0's handler: a bare raise re-raises
		// state 0's IndentationError.
		{"bare raise", "raise", "    raise", "", 0},
		{"CR LF kept at state 0", "    x = 1\r\n    return x\r\n", "    x = 1\r\n    return x\r\n", "", 0},
		{"CR LF split at state 1", "x = 1\r\n    return x", "    x = 1\n    return x", "", 0},
		{"tab", "\treturn 1", "\treturn 1", "", 0},
		{"tabs and spaces (TabError)", "    if True:\n\treturn 1", "        if True:\n    \treturn 1", "", 0},
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
		{"loops at state 1", "x = 0\n    while True:\n        x += 1", "    x = 0\n    while True:\n        x += 1", "limit", 2},
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

// The mbpp_737 shape on a made-up problem: the fix puts the import into
// the signature's stub, so under the isolated namespace every internal
// test fails with NameError; in the shared namespace, after a problem
// whose answer imported re at the top level, they pass, as in the
// reference's run. An answer whose first line is indented keeps the
// import at column 0 and passes alone.
func TestReflexionCodeIndentImportBeforeRedefinition(t *testing.T) {
	const prompt = "def check_vowel(s: str) -> bool:\n    \"\"\"Whether s starts with a vowel.\"\"\"\n"
	const def = "def check_vowel(s):\n    return bool(re.match('[aeiou]', s))"
	const tests = "assert check_vowel('apple') == True\nassert check_vowel('sky') == False"
	importer := chainProblem{"def first(x: int) -> int:\n    \"\"\"Return 0.\"\"\"\n", "first",
		"    return 0\nimport re", "assert first(1) == 0"}
	vowel := chainProblem{prompt, "check_vowel", "import re\n\n" + def, tests}
	docFirst := chainProblem{prompt, "check_vowel", "    \"\"\"Match.\"\"\"\nimport re\n\n" + def, tests}
	const notDefined = "Tested passed:\n\nTests failed:\nassert check_vowel('apple') == True # output: name 're' is not defined\n" +
		"assert check_vowel('sky') == False # output: name 're' is not defined"
	const passed = "Tested passed:\n" + tests + "\n\nTests failed:"
	for _, c := range []struct {
		name      string
		namespace string
		ps        []chainProblem
		impl      string // the last problem's implementation
		feedback  string // and its feedback
	}{
		{"isolated", "isolated", []chainProblem{vowel}, prompt + "    import re\n\n" + def, notDefined},
		{"isolated after an import", "isolated", []chainProblem{importer, vowel}, prompt + "    import re\n\n" + def, notDefined},
		{"shared", "shared", []chainProblem{vowel}, prompt + "    import re\n\n" + def, notDefined},
		{"shared after an import", "shared", []chainProblem{importer, vowel}, prompt + "    import re\n\n" + def, passed},
		{"docstring first, isolated", "isolated", []chainProblem{docFirst}, prompt + docFirst.answer, passed},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newStrategy(t, "reflexion_code", map[string]any{"max_iters": 1, "namespace": c.namespace})
			got := solveChain(t, chain{c.ps}, s, 0, nil)
			last := got[len(got)-1]
			if last.Impl != c.impl {
				t.Errorf("implementation\n%q\nwant\n%q", last.Impl, c.impl)
			}
			if last.Feedback != c.feedback || last.Passed != (c.feedback == passed) {
				t.Errorf("feedback (passed %v)\n%s\nwant\n%s", last.Passed, last.Feedback, c.feedback)
			}
		})
	}
}

// A fix that decided nothing is an error step of the item's trajectory,
// before the implementation it produced.
func TestReflexionCodeIndentFailureIsTraced(t *testing.T) {
	ex := codeExec(t)
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	answer := "    import sys\n    sys.exit(0)"
	log := &traceLog{}
	task := &addTask{exec: ex}
	insts, _ := task.Instances()
	s := newStrategy(t, "reflexion_code", map[string]any{"strategy": "simple"})
	model := &codeScript{answers: map[string]string{"i0/impl": answer}}
	if _, err := s.Solve(context.Background(), Env{Sampler: model, Task: task, Prompts: lib, Seed: 1, Exec: ex, Trace: log}, insts[0]); err != nil {
		t.Fatal(err)
	}
	want := []string{"error: indentation fix failed: the answer raised SystemExit, which the reference's fix does not catch (its process ended)",
		"implementation: " + addPrompt + answer}
	if !reflect.DeepEqual(log.steps, want) {
		t.Errorf("steps %q, want %q", log.steps, want)
	}
}
