package code

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// finishing answers the isolated rule's judge run as a clean exit whose
// standard output is out(marker), the marker being what the judge was
// given on standard input.
type finishing struct{ out func(marker string) string }

func (f finishing) Execute(_ context.Context, _ string, p sandbox.Program) (sandbox.Result, error) {
	return sandbox.Result{Status: sandbox.OK, Stdout: f.out(strings.TrimSpace(p.Stdin))}, nil
}

// TestVerdictNeedsTheFinishLine: a clean exit passes only with the
// judge's own finish line, its marker and all; a clean exit without it,
// or with another marker, is a run that ended before it finished.
func TestVerdictNeedsTheFinishLine(t *testing.T) {
	other := strings.Repeat("0", 32)
	cases := []struct {
		name    string
		out     func(string) string
		correct bool
	}{
		{"the finish line", func(m string) string { return "ok\n" + m + " finished\n" }, true},
		{"no finish line", func(string) string { return "" }, false},
		{"a finish line without a marker", func(string) string { return "\n finished\n" }, false},
		{"another marker's finish line", func(string) string { return "\n" + other + " finished\n" }, false},
		{"the marker without the word", func(m string) string { return "\n" + m + "\n" }, false},
	}
	task, _ := NewHumanEval().(tasks.RuleChooser).WithRule(RuleIsolated)
	insts, _ := task.Instances()
	for _, c := range cases {
		b, failed := task.(tasks.Executed).WithExecutor(context.Background(), finishing{c.out})
		s := b.Score(insts[0], "    return False\n")
		if s.Correct != c.correct || failed() != nil {
			t.Errorf("%s: %+v (%v), want correct=%v", c.name, s, failed(), c.correct)
		}
		if !c.correct && s.Reason != "the hidden tests ended before they finished" {
			t.Errorf("%s: reason %q", c.name, s.Reason)
		}
	}
}

// TestMarkersAreLong: both rules' markers carry 128 bits (a program that
// could guess a short one could write the verdict), and differ for
// different inputs.
func TestMarkersAreLong(t *testing.T) {
	seen := map[string]bool{}
	for i := range 2000 {
		in := strings.Repeat("x", i)
		for _, m := range []string{refNonce("hidden", []byte(in)), finishMarker(in)} {
			if len(m) != 32 || strings.Trim(m, "0123456789abcdef") != "" {
				t.Fatalf("marker %q: want 32 hex digits", m)
			}
			if seen[m] {
				t.Fatalf("marker %q repeats for another input", m)
			}
			seen[m] = true
		}
	}
}

// resuming records each reference run's site and answers the first as a
// process that wrote the first verdict and then died, the rest in full.
type resuming struct{ sites, nonces []string }

func (r *resuming) Execute(_ context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	nonce := strings.TrimSpace(p.Stdin)
	r.sites = append(r.sites, site)
	r.nonces = append(r.nonces, nonce)
	if len(r.sites) == 1 {
		return sandbox.Result{Status: sandbox.Crash, Signal: "SIGKILL", Stdout: "\n" + nonce + " 0 pass \"\"\n"}, nil
	}
	var progs []string
	if err := json.Unmarshal([]byte(p.Files["problems.json"]), &progs); err != nil {
		return sandbox.Result{}, err
	}
	var out strings.Builder
	for i := range progs {
		out.WriteString("\n" + nonce + " " + strconv.Itoa(i) + " pass \"\"\n")
	}
	return sandbox.Result{Status: sandbox.OK, Stdout: out.String()}, nil
}

// TestReferenceResumesAtItsOwnSite: the part after a problem that ended
// the reference's process runs at a site of its own, so its execution is
// recorded apart from the first part's (a rerun replays each).
func TestReferenceResumesAtItsOwnSite(t *testing.T) {
	var r resuming
	v, err := runReference(context.Background(), &r, "hidden", []refItem{{code: "a = 1"}, {code: "b = 2"}, {code: "c = 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"hidden", "hidden/resume1"}; strings.Join(r.sites, ",") != strings.Join(want, ",") {
		t.Fatalf("sites %q, want %q", r.sites, want)
	}
	if r.nonces[0] == r.nonces[1] {
		t.Errorf("the resumed part has the first part's marker %q", r.nonces[0])
	}
	if !v[0].pass || v[1].pass || !strings.Contains(v[1].reason, "killed by signal SIGKILL") || !v[2].pass {
		t.Errorf("verdicts %+v", v)
	}
}

// TestIsolatedAssembly runs the isolated rule on the sandbox: a program
// that removes the entry point is judged without the prompt's stub (which
// would pass the test), and a whole function after a prompt that ends
// without a newline is a program that loads.
func TestIsolatedAssembly(t *testing.T) {
	rows := `{"task_id": "stub", "prompt": "def f(x):\n    return x\n", "entry_point": "f", "test": "def check(c):\n    assert c(1) == 1\n"}
{"task_id": "no newline", "prompt": "def f(x):\n    \"\"\"Return x.\"\"\"", "entry_point": "f", "test": "def check(c):\n    assert c(2) == 2\n"}
`
	path := filepath.Join(t.TempDir(), "assembly.jsonl")
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bound(t, task)
	b.limits = sandbox.Limits{Wall: 5 * time.Second, CPU: 5 * time.Second}
	insts, _ := b.Instances()
	if s := b.Score(insts[0], "```python\nx = 1\n```"); !s.Correct {
		t.Errorf("the prompt's function, kept by a program that adds to it: %+v", s)
	}
	for _, code := range []string{"del f\n", "f = object()\n"} {
		if s := b.Score(insts[0], "```python\n"+code+"```"); s.Correct || !strings.Contains(s.Reason, "NameError") {
			t.Errorf("a program without the entry point (%q) passed on the prompt's stub: %+v", code, s)
		}
	}
	if s := b.Score(insts[1], "```python\ndef f(x):\n    return x\n```"); !s.Correct {
		t.Errorf("a whole function after a prompt without a final newline: %+v", s)
	}
	if m := CandidateModule(b.problems[1], "def f(x):\n    return x\n"); !strings.Contains(m, "\"\"\"Return x.\"\"\"\ndef f(x):") {
		t.Errorf("module %q", m)
	}
}
