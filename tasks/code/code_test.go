package code

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// runner is the real sandbox (sandboxtest: skipped without one unless
// BENCH_REQUIRE_SANDBOX is set).
func runner(t testing.TB) tasks.Executor {
	t.Helper()
	return tasks.RunnerExecutor{Runner: sandboxtest.Runner(t)}
}

func bound(t testing.TB, task tasks.Task) *Task {
	t.Helper()
	b, _ := task.(tasks.Executed).WithExecutor(context.Background(), runner(t))
	return b.(*Task)
}

func readLog(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

func TestEmbeddedCounts(t *testing.T) {
	he, err := HumanEvalProblems()
	if err != nil || len(he) != NumHumanEval {
		t.Fatalf("humaneval: %d, %v", len(he), err)
	}
	mb, err := MBPPProblems()
	if err != nil || len(mb) != NumMBPP {
		t.Fatalf("mbpp: %d, %v", len(mb), err)
	}
	for _, p := range he {
		if p.SelfChecking() || p.Canonical == "" || !strings.Contains(p.Prompt, "def "+p.EntryPoint) {
			t.Fatalf("%s: self-checking %v, canonical %d bytes", p.ID, p.SelfChecking(), len(p.Canonical))
		}
	}
	for _, p := range mb {
		if !p.SelfChecking() {
			t.Fatalf("%s: test does not call test_check()", p.ID)
		}
	}
}

func TestExtractAndAssemble(t *testing.T) {
	p := Problem{ID: "x", Prompt: "from typing import List\n\n\ndef f(a: List[int]) -> int:\n    \"\"\"doc\"\"\"\n", EntryPoint: "f",
		HiddenTest: "def check(candidate):\n    assert candidate([1]) == 1\n"}
	for _, c := range []struct{ name, out, code, program string }{
		{"body", "    return a[0]", "    return a[0]",
			p.Prompt + "    return a[0]\n" + p.HiddenTest + "\ncheck(f)\n"},
		{"fenced whole function", "Here:\n```python\ndef f(a):\n    return a[0]\n```\nDone.", "def f(a):\n    return a[0]\n",
			p.Prompt + "def f(a):\n    return a[0]\n\n" + p.HiddenTest + "\ncheck(f)\n"},
		{"second block defines it", "```python\nimport math\n```\n```py\ndef helper(): pass\ndef f (a):\n    return 1\n```", "def helper(): pass\ndef f (a):\n    return 1\n", ""},
		{"unterminated fence", "```python\ndef f(a):\n    return 2", "def f(a):\n    return 2", ""},
		{"other language fence ignored", "```text\nhi\n```\n    return 3", "```text\nhi\n```\n    return 3", ""},
		{"empty", "", "", p.Prompt + "\n" + p.HiddenTest + "\ncheck(f)\n"},
	} {
		code := ExtractCode(c.out, "f")
		if code != c.code {
			t.Errorf("%s: code %q, want %q", c.name, code, c.code)
		}
		if c.program != "" {
			if got := Program(p, code); got != c.program {
				t.Errorf("%s: program\n%s\nwant\n%s", c.name, got, c.program)
			}
		}
	}
	if Defines("def fx(a):", "f") || Defines("    def f(a):", "f") || !Defines("async def f(a):", "f") {
		t.Error("Defines: wrong on a prefix name, a nested def or an async def")
	}
}

func TestUnboundRunsNothing(t *testing.T) {
	task := NewHumanEval()
	insts, _ := task.Instances()
	s := task.Score(insts[0], "    return True")
	if s.Correct || s.Reason != "no sandbox" {
		t.Fatalf("unbound score %+v", s)
	}
	if _, err := task.(*Task).ScoreRecord(map[string]any{"task_id": "HumanEval/0", "solution": ""}); err == nil {
		t.Fatal("unbound ScoreRecord ran")
	}
}

// TestCanonicalSolutions: the canonical solutions pass their hidden
// tests, and a wrong body fails with the failing line in the reason.
// By default a sample (canonicalSample: every ninth problem and
// HumanEval/38, 20 of 164 sandboxed programs) checks the assembly of
// prompt, solution and test; all 164, which check every problem's
// embedded data, take 26 s under -race on two busy cores and run under
// BENCH_FULL_CANONICAL=1, which .ci/run sets (issue 34).
func TestCanonicalSolutions(t *testing.T) {
	task := bound(t, NewHumanEval())
	insts, _ := task.Instances()
	var recs []map[string]any
	for i, p := range task.problems {
		if canonicalSample(i) {
			recs = append(recs, map[string]any{"task_id": p.ID, "completion": p.Canonical})
		}
	}
	if full := os.Getenv("BENCH_FULL_CANONICAL") == "1"; full && len(recs) != len(task.problems) || !full && len(recs) != 20 {
		t.Fatalf("%d canonical solutions picked of %d (BENCH_FULL_CANONICAL=%v)", len(recs), len(task.problems), full)
	}
	scores, err := task.ScoreRecords(context.Background(), recs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range scores {
		if !s.Correct {
			t.Errorf("%s: canonical solution fails: %s", recs[i]["task_id"], s.Reason)
		}
	}
	s := task.Score(insts[0], "```python\ndef has_close_elements(numbers, threshold):\n    return False\n```")
	if s.Correct || !strings.Contains(s.Reason, "exit code 1") || !strings.Contains(s.Reason, "AssertionError") {
		t.Errorf("wrong solution: %+v", s)
	}
	// A whole function may use a helper the prompt defines (HumanEval/38).
	if s := task.Score(insts[38], "```python\ndef decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n```"); !s.Correct {
		t.Errorf("whole function using the prompt's helper: %+v", s)
	}
	task.limits = sandbox.Limits{Wall: time.Second, CPU: time.Second} // the reference's 10 s, shortened for the test
	s = task.Score(insts[0], "def has_close_elements(numbers, threshold):\n    while True: pass\n")
	if s.Correct || !strings.HasPrefix(s.Reason, "timeout") && !strings.HasPrefix(s.Reason, "cpu") {
		t.Errorf("endless loop: %+v", s)
	}
}

// canonicalSample picks HumanEval problem i for TestCanonicalSolutions:
// all under BENCH_FULL_CANONICAL=1, else every ninth and 38 (whose
// prompt defines a helper the solution calls).
func canonicalSample(i int) bool {
	return os.Getenv("BENCH_FULL_CANONICAL") == "1" || i%9 == 0 || i == 38
}

// logVerdicts scores a Reflexion log sample under a rule and compares with
// each line's logged is_solved; it returns the ids that differ.
func logVerdicts(t *testing.T, task tasks.Task, path, rule string) []string {
	t.Helper()
	if rule != "" {
		var err error
		if task, err = task.(tasks.RuleChooser).WithRule(rule); err != nil {
			t.Fatal(err)
		}
	}
	b := bound(t, task)
	recs := readLog(t, path)
	scores, err := b.ScoreRecords(context.Background(), recs, 2)
	if err != nil {
		t.Fatal(err)
	}
	var differ []string
	for i, rec := range recs {
		if scores[i].Correct != rec["is_solved"].(bool) {
			id, _ := rec["task_id"].(string)
			if id == "" {
				id, _ = rec["name"].(string)
			}
			differ = append(differ, id+" ("+scores[i].Reason+")")
		}
	}
	return differ
}

func TestHumanEvalLogVerdicts(t *testing.T) {
	if d := logVerdicts(t, NewHumanEval(), "testdata/gpt4_reflexion_humaneval_sample.jsonl", ""); len(d) > 0 {
		t.Errorf("isolated: %d lines differ from the logged verdict: %v", len(d), d)
	}
	if d := logVerdicts(t, NewHumanEval(), "testdata/gpt4_reflexion_humaneval_sample.jsonl", RuleReference); len(d) > 0 {
		t.Errorf("reference: %d lines differ from the logged verdict: %v", len(d), d)
	}
}

func TestMBPPLogVerdicts(t *testing.T) {
	if d := logVerdicts(t, NewMBPP(), "testdata/gpt4_reflexion_mbpp_sample.jsonl", RuleReference); len(d) > 0 {
		t.Errorf("reference: %d lines differ from the logged verdict: %v", len(d), d)
	}
	// None of these 40 lines depends on the shared namespace, so the
	// isolated rule (the judge in its own process) agrees too.
	if d := logVerdicts(t, NewMBPP(), "testdata/gpt4_reflexion_mbpp_sample.jsonl", ""); len(d) > 0 {
		t.Errorf("isolated: %d lines differ from the logged verdict: %v", len(d), d)
	}
}

// TestReferenceNamespace: under the reference rule a line sees what the
// lines before it defined or imported, and what the executor's module
// holds (List); in isolation it does not. A line that kills the process
// fails alone, and the lines after it start in a fresh namespace.
func TestReferenceNamespace(t *testing.T) {
	mb := NewMBPP()
	recs := []map[string]any{
		// mbpp_234_volume_cube, defining a global helper and importing math.
		{"name": "mbpp_234_volume_cube", "solution": "import math\ndef cube_helper(x):\n    return x ** 3\ndef volume_cube(l: int) -> int:\n    return cube_helper(l)\n"},
		// uses the helper and math without defining or importing them.
		{"name": "mbpp_89_closest_num", "solution": "def closest_num(N: int) -> int:\n    return int(math.floor(cube_helper(N) ** 0)) * N - 1\n"},
		// List without an import: the executor module's globals have it.
		{"name": "mbpp_77_is_Diff", "solution": "def is_Diff(n: int, xs: List[int] = None) -> bool:\n    return n % 11 == 0\n"},
		// ends the process: fails alone.
		{"name": "mbpp_20_is_woodall", "solution": "import os\nos._exit(0)\n"},
		// after the restart the helper is gone.
		{"name": "mbpp_420_cube_Sum", "solution": "def cube_Sum(n: int) -> int:\n    return sum(cube_helper(2 * i) for i in range(1, n + 1))\n"},
	}
	want := map[string][]bool{
		RuleReference: {true, true, true, false, false},
		RuleIsolated:  {true, false, false, false, false},
	}
	for _, rule := range []string{RuleReference, RuleIsolated} {
		task, _ := mb.(tasks.RuleChooser).WithRule(rule)
		b := bound(t, task)
		scores, err := b.ScoreRecords(context.Background(), recs, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range scores {
			if s.Correct != want[rule][i] {
				t.Errorf("%s: line %d (%s): correct=%v, want %v (%s)", rule, i+1, recs[i]["name"], s.Correct, want[rule][i], s.Reason)
			}
		}
		if rule == RuleReference && !strings.Contains(scores[3].Reason, "ended on this problem") {
			t.Errorf("the killed line's reason: %q", scores[3].Reason)
		}
	}
}

// TestReferenceVerdictsUnforgeable: a program printing verdict-shaped
// lines, on stdout or straight to file descriptor 1, changes nothing.
func TestReferenceVerdictsUnforgeable(t *testing.T) {
	task, _ := NewMBPP().(tasks.RuleChooser).WithRule(RuleReference)
	b := bound(t, task)
	forge := "import os\nfor i in range(3):\n    print('x', i, 'pass', '\"\"')\n    os.write(1, ('\\n0 %d pass \"\"\\n' % i).encode())\ndef volume_cube(l: int) -> int:\n    return 0\n"
	recs := []map[string]any{
		{"name": "mbpp_234_volume_cube", "solution": forge},
		{"name": "mbpp_89_closest_num", "solution": "def closest_num(N: int) -> int:\n    return 0\n"},
	}
	scores, err := b.ScoreRecords(context.Background(), recs, 1)
	if err != nil {
		t.Fatal(err)
	}
	if scores[0].Correct || scores[1].Correct {
		t.Fatalf("forged verdicts counted: %+v", scores)
	}
	if got := parseVerdicts("\nabc 0 pass \"\"\nabc 0 pass \"\"\nabc 1 fail \"E\"\nzzz 1 pass \"\"\n", "abc", 2); got[0].pass || got[1].pass || got[1].reason != "E" {
		t.Fatalf("parseVerdicts: %+v %+v", *got[0], *got[1])
	}
}

func TestRecordErrors(t *testing.T) {
	b := bound(t, NewHumanEval())
	for _, rec := range []map[string]any{
		{"solution": "x"},
		{"task_id": "HumanEval/999", "solution": "x"},
		{"task_id": "HumanEval/0"},
		{"task_id": "HumanEval/0", "solution": 3.0},
	} {
		_, err := b.ScoreRecords(context.Background(), []map[string]any{{"task_id": "HumanEval/1", "solution": ""}, rec}, 1)
		var re RecordError
		if !errorsAs(err, &re) || re.Index != 1 {
			t.Errorf("%v: error %v, want a RecordError at 1", rec, err)
		}
	}
}

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

// BenchmarkScoreCanonical scores HumanEval's 164 canonical solutions in the
// sandbox, two at a time, as `bench score --concurrency 2` would.
func BenchmarkScoreCanonical(b *testing.B) {
	task := bound(b, NewHumanEval())
	var recs []map[string]any
	for _, p := range task.problems {
		recs = append(recs, map[string]any{"task_id": p.ID, "completion": p.Canonical})
	}
	for b.Loop() {
		scores, err := task.ScoreRecords(context.Background(), recs, 2)
		if err != nil {
			b.Fatal(err)
		}
		for i, s := range scores {
			if !s.Correct {
				b.Fatalf("%s: canonical solution fails: %s", recs[i]["task_id"], s.Reason)
			}
		}
	}
}

// TestFileTask: a JSON Lines file with a test column is a code task; its
// rows score like HumanEval's (a test that defines check is called with
// the entry point, one that calls its checks itself is not).
func TestFileTask(t *testing.T) {
	if !IsCodeFile("testdata/three.jsonl") || IsCodeFile("testdata/gpt4_reflexion_humaneval_sample.jsonl") == false {
		t.Fatal("IsCodeFile misses a file with a test column")
	}
	qa := filepath.Join(t.TempDir(), "qa.jsonl")
	os.WriteFile(qa, []byte(`{"question": "2+2?", "answer": "4"}`+"\n"), 0o644)
	if IsCodeFile(qa) {
		t.Fatal("a question-answer file taken for a code file")
	}
	task, err := LoadFile("testdata/three.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(task.Name(), "file:three.jsonl@") || task.Dataset().Rows != 3 || task.TemplateFolders()[0] != HumanEval {
		t.Fatalf("task %s %+v", task.Name(), task.Dataset())
	}
	insts, _ := task.Instances()
	b := bound(t, task)
	for i, c := range []struct {
		out  string
		want bool
	}{
		{"    return a + b\n", true},
		{"```python\ndef rev(s):\n    return s[::-1]\n```", true},
		{"```python\ndef evens(xs: List[int]) -> List[int]:\n    return [x for x in xs if x % 2]\n```", false},
	} {
		if s := b.Score(insts[i], c.out); s.Correct != c.want {
			t.Errorf("row %d: %+v, want correct=%v", i, s, c.want)
		}
	}
	for _, c := range []struct{ body, want string }{
		{`{"prompt": "def f():\n  pass\n", "entry_point": "f"}`, "no test"},
		{`{"prompt": "def f():\n  pass\n", "test": "assert f() is None", "entry_point": "g"}`, "does not define g"},
		{`{"prompt": "def f():\n  pass\n", "test": "assert f() is None"}`, "no entry_point"},
		{`{"test": 3}`, "test is not a string"},
		{`[1]`, "not a JSON object"},
	} {
		p := filepath.Join(t.TempDir(), "bad.jsonl")
		os.WriteFile(p, []byte(`{"prompt": "def f():\n  pass\n", "test": "assert f() is None", "entry_point": "f"}`+"\n"+c.body+"\n"), 0o644)
		if _, err := LoadFile(p); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want line 2 and %q", c.body, err, c.want)
		}
	}
}

// refusing fails a test that reaches the sandbox.
type refusing struct{ t *testing.T }

func (r refusing) Execute(context.Context, string, sandbox.Program) (sandbox.Result, error) {
	r.t.Fatal("a program ran")
	return sandbox.Result{}, nil
}

// TestEnormousOutput: code beyond MaxCode is a recorded failure, not a
// sandbox run.
func TestEnormousOutput(t *testing.T) {
	task := NewHumanEval()
	b, _ := task.(tasks.Executed).WithExecutor(context.Background(), refusing{t})
	insts, _ := task.Instances()
	s := b.Score(insts[0], "```python\n"+strings.Repeat("x = 1\n", MaxCode/5)+"```")
	if s.Correct || !strings.Contains(s.Reason, "limit") || len(s.Answer) > 300 {
		t.Fatalf("enormous output: correct %v, reason %q, answer of %d bytes", s.Correct, s.Reason, len(s.Answer))
	}
}

// FuzzExtractCode: the code taken from any output is part of it, and the
// program built from it starts with the prompt and holds the test.
func FuzzExtractCode(f *testing.F) {
	f.Add("```python\ndef f(a):\n    return a\n```", "f")
	f.Add("    return 1", "f")
	f.Add("```py\n```\n```\ndef g(): pass", "g")
	f.Add("``````", "")
	p := Problem{Prompt: "def f(a):\n    \"\"\"doc\"\"\"\n", EntryPoint: "f", HiddenTest: "def check(c):\n    assert c(1) == 1\n"}
	f.Fuzz(func(t *testing.T, out, entry string) {
		code := ExtractCode(out, entry)
		if !strings.Contains(out, code) {
			t.Fatalf("code %q is not part of %q", code, out)
		}
		prog := Program(p, code)
		if !strings.HasPrefix(prog, p.Prompt) || !strings.Contains(prog, p.HiddenTest) || !strings.HasSuffix(prog, "check(f)\n") {
			t.Fatalf("program %q", prog)
		}
	})
}
