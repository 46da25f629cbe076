package code

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// TestRulesAndKeys: the rules' names and descriptions (the reference
// rule says it is forgeable), an unknown rule named in its error, what a
// strategy sees of a problem, and the vote key.
func TestRulesAndKeys(t *testing.T) {
	he := NewHumanEval().(*Task)
	if got := he.Rules(); len(got) != 2 || got[0] != RuleIsolated || got[1] != RuleReference {
		t.Fatalf("rules %v: the default first", got)
	}
	if r := tasks.RuleName(he); r != "humaneval/isolated" || !strings.Contains(tasks.Rule(he), "cannot forge") {
		t.Errorf("isolated rule: %q", tasks.Rule(he))
	}
	ref, err := he.WithRule(RuleReference)
	if err != nil || tasks.RuleName(ref) != "humaneval/reference" || !strings.Contains(tasks.Rule(ref), "FORGEABLE") {
		t.Errorf("reference rule: %q, %v", tasks.Rule(ref), err)
	}
	if _, err := he.WithRule("strict"); err == nil || !strings.Contains(err.Error(), "isolated, reference") {
		t.Errorf("unknown rule: %v", err)
	}
	insts, _ := he.Instances()
	cp := he.Problem(insts[38])
	if cp.ID != "HumanEval/38" || cp.EntryPoint != "decode_cyclic" || cp.Language != "python" || !strings.Contains(cp.Prompt, "def encode_cyclic") {
		t.Errorf("problem %+v", cp)
	}
	if p := he.problem(tasks.Instance{Key: "HumanEval/7"}); p.EntryPoint != "filter_by_substring" {
		t.Errorf("a problem by key: %+v", p)
	}
	if p := he.problem(tasks.Instance{Key: "nope", Input: "def f(): pass"}); p.ID != "nope" || p.Prompt != "def f(): pass" || p.HiddenTest != "" {
		t.Errorf("an unknown key: %+v", p)
	}
	k1, ok1 := he.AnswerKey(insts[0], "```python\ndef has_close_elements(a, b):\n    return 1\n```\n", "code")
	k2, ok2 := he.AnswerKey(insts[0], "Sure:\n```python\n\ndef has_close_elements(a, b):\n    return 1\n\n```", "code")
	if !ok1 || !ok2 || k1 != k2 || k1 == "" {
		t.Errorf("one program, two keys: %q %q", k1, k2)
	}
	if _, ok := he.AnswerKey(insts[0], "", "code"); ok {
		t.Error("an empty output has a key")
	}
	if v := he.VoteKeys(); len(v) != 1 || v[0] != "code" {
		t.Errorf("vote keys %v", v)
	}
	b := broken{"humaneval", errors.New("humaneval: bad gzip")}
	if _, err := b.Instances(); err == nil || b.Score(tasks.Instance{}, "x").Reason != "humaneval: bad gzip" || b.Name() != "humaneval" {
		t.Error("a broken task does not report its error")
	}
	if _, ok := b.AnswerKey(tasks.Instance{}, "x", "code"); ok || b.VoteKeys()[0] != "code" {
		t.Error("a broken task votes")
	}
}

// TestIsCodeFile: only a JSON Lines file whose first row has a test
// column is a code task.
func TestIsCodeFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, body string
		want       bool
	}{
		{"a.jsonl", "\n{\"prompt\": \"p\", \"test\": \"t\"}\n", true},
		{"a.ndjson", "{\"test\": \"t\"}\n", true},
		{"b.jsonl", "{\"question\": \"q\"}\n{\"test\": \"t\"}\n", false},
		{"c.csv", "test\nx\n", false},
		{"d.jsonl", "not json\n", false},
		{"e.jsonl", "\n\n", false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := IsCodeFile(p); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if IsCodeFile(filepath.Join(dir, "missing.jsonl")) {
		t.Error("a missing file is a code file")
	}
}

// countingExec runs programs on the sandbox, counting them, or fails.
type countingExec struct {
	ex   tasks.Executor
	mu   sync.Mutex
	runs int
	fail error
}

func (c *countingExec) Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	if c.fail != nil {
		return sandbox.Result{}, c.fail
	}
	return c.ex.Execute(ctx, site, p)
}

// TestBoundScoring: a bound copy runs one output once per site (a repeat
// is remembered), under either rule; a sandbox that cannot run is the
// item's failure, reported by the bound copy, and never remembered; a
// record that cannot be scored names its line.
func TestBoundScoring(t *testing.T) {
	for _, rule := range []string{RuleIsolated, RuleReference} {
		task, _ := NewMBPP().(tasks.RuleChooser).WithRule(rule)
		ex := &countingExec{ex: runner(t)}
		b, failed := task.(tasks.Executed).WithExecutor(context.Background(), ex)
		insts, _ := b.Instances()
		out := "```python\ndef volume_cube(l: int) -> int:\n    return l ** 3\n```"
		s1 := b.Score(insts[0], out)
		s2 := b.(tasks.Executed).(*Task).ScoreSample(insts[0], out, 0)
		if !s1.Correct || !s2.Correct || ex.runs != 1 || failed() != nil {
			t.Errorf("%s: scores %+v %+v after %d runs (%v)", rule, s1, s2, ex.runs, failed())
		}
		if s := b.(*Task).ScoreSample(insts[0], out, 1); !s.Correct || ex.runs != 2 {
			t.Errorf("%s: another site: %+v after %d runs", rule, s, ex.runs)
		}
	}
	down := &countingExec{fail: sandbox.ErrUnavailable}
	b, failed := NewHumanEval().(tasks.Executed).WithExecutor(context.Background(), down)
	insts, _ := b.Instances()
	for range 2 {
		if s := b.Score(insts[0], "    return False\n"); s.Correct || !strings.HasPrefix(s.Reason, "sandbox: ") {
			t.Errorf("a sandbox that cannot run: %+v", s)
		}
	}
	if err := failed(); !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "hidden tests of HumanEval/0") || down.runs != 2 {
		t.Errorf("failed() = %v after %d runs", err, down.runs)
	}
	_, err := b.(*Task).ScoreRecords(context.Background(), []map[string]any{{"task_id": "HumanEval/0", "solution": "x"}}, 1)
	if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "record 1") {
		t.Errorf("ScoreRecords on a sandbox that cannot run: %v", err)
	}
	hb := bound(t, NewHumanEval())
	s, err := hb.ScoreRecord(map[string]any{"task_id": "HumanEval/53", "completion": "    return x + y\n"})
	if err != nil || !s.Correct {
		t.Errorf("ScoreRecord: %+v, %v", s, err)
	}
	_, err = hb.ScoreRecord(map[string]any{"task_id": "HumanEval/53"})
	var re RecordError
	if !errors.As(err, &re) || re.RecordIndex() != 0 || !strings.Contains(re.Error(), "no solution") || errors.Unwrap(re) == nil {
		t.Errorf("a line without code: %v", err)
	}
}
