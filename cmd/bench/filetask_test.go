package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks/gsm8k"
)

func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFileTaskBadInput: every problem with a data file is one line naming
// the file, the line and the fix, exit 2, and nothing is stored.
func TestFileTaskBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	ok := writeText(t, dir, "ok.jsonl", `{"question": "2+2?", "answer": "4"}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--task", "file:" + writeText(t, dir, "empty.jsonl", "")}, "empty.jsonl: no rows: the file is empty"},
		{[]string{"--task", "file:" + writeText(t, dir, "noq.jsonl", `{"question": "a", "answer": "b"}`+"\n"+`{"text": "a", "answer": "b"}`)},
			`noq.jsonl:2: no "question" field; every row needs the question text (or name the file's field with fields: {question: NAME} in a --task-spec file)`},
		{[]string{"--task", "file:" + writeText(t, dir, "noa.csv", "question,gold\nq,a\n")}, `noa.csv:2: no "answer" field`},
		{[]string{"--task", "file:" + writeText(t, dir, "mixed.jsonl", `{"question": "a", "answer": "b"}`+"\n"+`{"question": "c", "answer": {"d": 1}}`)},
			`mixed.jsonl:2: "answer" is an object here but a text on line 1; give the field the same type on every row`},
		{[]string{"--task", "file:" + writeText(t, dir, "bad.csv", "question,answer\n\"a,b\n")}, "bad.csv:2: bad CSV"},
		{[]string{"--task", "file:" + ok, "--scorer", "bleu"}, `unknown scorer "bleu"`},
		{[]string{"--task", "file:" + ok, "--scorer", "exact", "--rule", "numeric"}, "give one of them"},
		{[]string{"--task", "file:" + ok, "--scorer", "choice"}, "ok.jsonl:1: no choices for the choice scorer"},
		{[]string{"--task", "file:" + filepath.Join(dir, "missing.jsonl")}, "data file: open"},
		{[]string{"--task", "file:" + ok, "--task-spec", writeText(t, dir, "s.yaml", "scorer: exact\nnormalise: squad\n")}, "field normalise not found (known keys:"},
	} {
		args := append([]string{"run", "--db", db, "--strategy", "cot"}, c.args...)
		code, _, stderr := cli(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		if code, out, _ := cli(t, "report", "--db", db, "--format", "json"); code == 0 && strings.Contains(out, "run_id") {
			t.Errorf("bad input stored a run: %s", out)
		}
	}
}

func TestFileTaskRunListScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	data := writeText(t, dir, "qa.csv", "id,question,answer\na,Tom has 3 apples and buys 5 more apples. How many apples does he have?,8\nb,Sara had 20 dollars and spent 7 dollars. How many dollars are left?,13\n")
	code, out, stderr := cli(t, "run", "--db", db, "--task", "file:"+data, "--strategy", "cotsc", "--set", "k=5", "--scorer", "numeric", "--json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sum["task"].(string), "file:qa.csv@") || sum["rule"] != "file/numeric" || !strings.HasPrefix(sum["dataset"].(string), "sha256:") {
		t.Errorf("summary %s", out)
	}
	code, out, _ = cli(t, "report", "--db", db)
	if code != 0 || !strings.Contains(out, sum["task"].(string)) || !strings.Contains(out, "file/numeric") {
		t.Errorf("report does not name the data and scorer:\n%s", out)
	}
	code, out, _ = cli(t, "list", "--task", "file:"+data)
	if code != 0 || !strings.Contains(out, sum["task"].(string)) || !strings.Contains(out, sum["dataset"].(string)) || !strings.Contains(out, "(2 rows)") {
		t.Errorf("list --task:\n%s", out)
	}
	code, out, _ = cli(t, "list")
	if code != 0 || !strings.Contains(out, "gsm8k") || !strings.Contains(out, "file:PATH") || !strings.Contains(out, "em_f1") || !strings.Contains(out, "sc-gsm8k/cotsc-40") {
		t.Errorf("list lacks gsm8k, file tasks, scorers or presets:\n%s", out)
	}

	// bench score on the file task: gold by question text, votes by group.
	in := writeText(t, dir, "outs.jsonl", `{"idx": 0, "question": "Tom has 3 apples and buys 5 more apples. How many apples does he have?", "output": "Answer: 8"}
{"idx": 0, "question": "Tom has 3 apples and buys 5 more apples. How many apples does he have?", "output": "Answer: 8.0"}
{"idx": 0, "question": "Tom has 3 apples and buys 5 more apples. How many apples does he have?", "output": "Answer: 15"}
{"idx": 1, "question": "Something else?", "answer": "4", "output": "2 + 2 = 4\nAnswer: 4"}
`)
	code, out, stderr = cli(t, "score", "--task", "file:"+data, "--scorer", "numeric", "--in", in, "--group-by", "idx", "--vote", "answer")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || !strings.Contains(lines[2], `"correct":false`) || !strings.Contains(lines[4], `"voted":"8"`) || !strings.Contains(lines[6], `"voted_accuracy":1`) {
		t.Errorf("score output:\n%s", out)
	}
}

func TestScoreGSM8K(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows, err := gsm8k.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows[:3] {
		rec, _ := json.Marshal(map[string]string{"question": r.Question, "output": r.Answers[0]})
		b.Write(rec)
		b.WriteByte('\n')
	}
	rec, _ := json.Marshal(map[string]string{"question": rows[3].Question, "output": "Answer: -1"})
	b.Write(rec)
	b.WriteByte('\n')
	code, out, stderr := cli(t, "score", "--task", "gsm8k", "--in", writeText(t, dir, "g.jsonl", b.String()))
	if code != 0 || !strings.Contains(out, `"summary":{"n":4,"correct":3,"accuracy":0.75,"rule":"gsm8k/numeric"`) {
		t.Errorf("exit %d %s\n%s", code, stderr, out)
	}
	code, _, stderr = cli(t, "score", "--task", "gsm8k", "--in", writeText(t, dir, "u.jsonl", `{"question": "Not in GSM8K?", "output": "Answer: 1"}`))
	if code == 0 || !strings.Contains(stderr, "line 1: question not among gsm8k's 1319 rows; give the gold answer as \"answer\"") {
		t.Errorf("unknown question: exit %d %s", code, stderr)
	}
}
