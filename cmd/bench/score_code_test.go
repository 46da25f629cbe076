package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreCodeLogs: `bench score` on the logged GPT-4 Reflexion lines
// writes the logged verdict (is_solved) on every line: HumanEval under the
// default (isolated) rule, MBPP under --rule reference.
func TestScoreCodeLogs(t *testing.T) {
	for _, tc := range []struct{ task, rule, file string }{
		{"humaneval", "", "gpt4_reflexion_humaneval_sample.jsonl"},
		{"mbpp", "reference", "gpt4_reflexion_mbpp_sample.jsonl"},
	} {
		args := []string{"score", "--task", tc.task, "--in", "../../tasks/code/testdata/" + tc.file}
		if tc.rule != "" {
			args = append(args, "--rule", tc.rule)
		}
		code, out, stderr := cli(t, args...)
		if code != 0 {
			if strings.Contains(stderr, "sandbox unavailable") {
				t.Skip(stderr)
			}
			t.Fatalf("%s: exit %d: %s", tc.file, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var sum struct {
			Summary struct {
				N, Correct int
				Rule       string
			}
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Summary.N == 0 {
			t.Fatalf("%s: summary line %q: %v", tc.file, lines[len(lines)-1], err)
		}
		solved := 0
		for i, l := range lines[:len(lines)-1] {
			var rec struct {
				IsSolved bool   `json:"is_solved"`
				Correct  bool   `json:"correct"`
				Reason   string `json:"reason"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Correct != rec.IsSolved {
				t.Errorf("%s line %d: correct %v, logged %v (%s)", tc.file, i+1, rec.Correct, rec.IsSolved, rec.Reason)
			}
			if rec.IsSolved {
				solved++
			}
		}
		if sum.Summary.N != len(lines)-1 || sum.Summary.Correct != solved {
			t.Errorf("%s: summary %+v, want n %d correct %d", tc.file, sum.Summary, len(lines)-1, solved)
		}
		if want := tc.task + "/" + map[string]string{"": "isolated"}[tc.rule] + tc.rule; sum.Summary.Rule != want {
			t.Errorf("%s: rule %q, want %q", tc.file, sum.Summary.Rule, want)
		}
	}
}

// TestScoreCodeBadLines: a line naming no problem, an unknown one, or
// carrying no code is the user's to fix: exit 2 naming the line.
func TestScoreCodeBadLines(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"solution": "    return 1"}`, "line 2: no task_id or name"},
		{`{"task_id": "HumanEval/164", "solution": ""}`, `line 2: "HumanEval/164" is not a problem of humaneval`},
		{`{"task_id": "HumanEval/3"}`, "line 2: no solution"},
	} {
		in := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(in, []byte(`{"task_id": "HumanEval/0", "solution": ""}`+"\n"+tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := cli(t, "score", "--task", "humaneval", "--in", in)
		if strings.Contains(stderr, "sandbox unavailable") {
			t.Skip(stderr)
		}
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.line, code, stderr, tc.want)
		}
	}
}

// TestScoreCodeFileTask: --task file:PATH with a test column scores lines
// by task_id against the file's problems.
func TestScoreCodeFileTask(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	lines := `{"task_id": "add", "solution": "    return a + b"}` + "\n" + `{"task_id": "rev", "completion": "    return s"}` + "\n"
	if err := os.WriteFile(in, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := cli(t, "score", "--task", "file:../../tasks/code/testdata/three.jsonl", "--in", in)
	if strings.Contains(stderr, "sandbox unavailable") {
		t.Skip(stderr)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != 3 || !strings.Contains(got[0], `"correct":true`) || !strings.Contains(got[1], `"correct":false`) ||
		!strings.Contains(got[2], `"n":2,"correct":1`) {
		t.Errorf("output:\n%s", out)
	}
}
