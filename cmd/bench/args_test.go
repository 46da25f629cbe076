package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseArgsTakesFlagsAnywhere(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		pos  []string
		out  string
		keep bool
	}{
		{[]string{"7", "--out", "f", "--keep"}, []string{"7"}, "f", true},
		{[]string{"--out", "f", "7", "8", "--keep"}, []string{"7", "8"}, "f", true},
		{[]string{"7", "--keep", "8", "--out=g"}, []string{"7", "8"}, "g", true},
		{[]string{"7", "--", "--out", "x"}, []string{"7", "--out", "x"}, "", false},
		{nil, nil, "", false},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		out := fs.String("out", "", "")
		keep := fs.Bool("keep", false, "")
		pos, err := parseArgs(fs, c.args)
		if err != nil || !reflect.DeepEqual(pos, c.pos) || *out != c.out || *keep != c.keep {
			t.Errorf("parseArgs(%q) = %q out=%q keep=%v err=%v; want %q out=%q keep=%v", c.args, pos, *out, *keep, err, c.pos, c.out, c.keep)
		}
	}
}

// TestFlagsAfterRunIDs: the commands a user hit with flags after the run id
// take them as flags (they were taken as run ids).
func TestFlagsAfterRunIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	for _, strategy := range []string{"io", "cot"} {
		if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", strategy, "--range", "900:902"); code != 0 {
			t.Fatal(stderr)
		}
	}
	out := filepath.Join(dir, "f.jsonl")
	if code, _, stderr := cli(t, "export", "--db", db, "1", "--out", out); code != 0 {
		t.Fatalf("export --db D 1 --out F: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"idx":900`) {
		t.Fatalf("export --out wrote %q (%v)", b, err)
	}
	if code, stdout, stderr := cli(t, "export", "--db", db, "1", "--calls"); code != 0 || !strings.Contains(stdout, `"calls":[`) {
		t.Fatalf("export --db D 1 --calls: exit %d: %s (stdout has no calls: %.200s)", code, stderr, stdout)
	}
	if code, stdout, stderr := cli(t, "show", "--db", db, "1", "--item", "901"); code != 0 || !strings.Contains(stdout, "item 901") {
		t.Fatalf("show --db D 1 --item 901: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := cli(t, "compare", "1", "--db", db, "2"); code != 0 || stdout == "" {
		t.Fatalf("compare 1 --db D 2: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "rm", "--db", db, "2", "--keep-cache"); code != 0 {
		t.Fatalf("rm --db D 2 --keep-cache: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := cli(t, "list", "--db", db); code != 0 || strings.Contains(stdout, "\n     2 ") {
		t.Fatalf("run 2 still listed after rm:\n%s", stdout)
	}
}

// TestGroupReportOfRunsWithoutTheirBaseline: the viewer suggests `bench
// report --runs N --group` for one run of an experiment; without the
// baseline's runs the table comes without paired columns and a note.
func TestGroupReportOfRunsWithoutTheirBaseline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	file := filepath.Join(dir, "e.yaml")
	exp := "name: mini\ntask: game24\nrange: \"900:904\"\nmodel: sim\nseeds: [1]\nbaseline: cot\nstrategies:\n  - cot: {k: 1}\n  - io: {k: 1}\n"
	if err := os.WriteFile(file, []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "run", "--db", db, "-f", file); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := cli(t, "report", "--db", db, "--runs", "2", "--group")
	if code != 0 || !strings.Contains(stdout, "| io ") || !strings.Contains(stderr, `baseline "cot" is not among the selected runs`) {
		t.Fatalf("report --runs 2 --group: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	// With the baseline among them, the paired columns are there.
	code, stdout, stderr = cli(t, "report", "--db", db, "--runs", "1,2", "--group")
	if code != 0 || !strings.Contains(stdout, "baseline") || stderr != "" {
		t.Fatalf("report --runs 1,2 --group: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// TestCompareOnAMetric: compare takes an item metric (crosswords' letter)
// instead of the 0/1 verdict, and names the metrics a run has when asked
// for one it lacks.
func TestCompareOnAMetric(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "c.db")
	for _, s := range []string{"io", "cot"} {
		if code, _, stderr := cli(t, "run", "--db", db, "--task", "crosswords", "--strategy", s, "--range", "0:4"); code != 0 {
			t.Fatal(stderr)
		}
	}
	code, stdout, stderr := cli(t, "compare", "--db", db, "1", "2", "--metric", "letter")
	if code != 0 || !strings.Contains(stdout, "| letter ") || !strings.Contains(stdout, "baseline letter") {
		t.Fatalf("compare --metric letter: exit %d\n%s%s", code, stdout, stderr)
	}
	plain, _, _ := func() (string, string, int) { c, o, e := cli(t, "compare", "--db", db, "1", "2"); return o, e, c }()
	if plain == stdout {
		t.Fatal("comparing on letter printed what comparing on the verdict prints")
	}
	code, _, stderr = cli(t, "compare", "--db", db, "1", "2", "--metric", "colour")
	if code != 2 || !strings.Contains(stderr, "no such metric") || !strings.Contains(stderr, "letter") {
		t.Fatalf("compare --metric colour: exit %d, %s", code, stderr)
	}
}

// TestReportByKOfPAL: PAL-SC's vote over executed answers has CoT-SC's
// curve over k' from one run.
func TestReportByKOfPAL(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "p.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "gsm8k", "--strategy", "pal", "--set", "k=4", "--range", "0:3"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := cli(t, "report", "--db", db, "--runs", "1", "--by", "k")
	if code != 0 || strings.Count(stdout, "\n| ") < 4 {
		t.Fatalf("report --by k of a pal run: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestScoreTakesTheFileAsItsArgument: bench score --task T FILE is bench
// score --task T --in FILE; two inputs are refused.
func TestScoreTakesTheFileAsItsArgument(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"puzzle": "4 5 6 10", "output": "Answer: (4 * 5) + (10 - 6) = 24"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, want, _ := cli(t, "score", "--task", "game24", "--in", in)
	code, got, stderr := cli(t, "score", "--task", "game24", in)
	if code != 0 || got != want || !strings.Contains(got, `"correct":true`) {
		t.Fatalf("score FILE: exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	if code, _, stderr := cli(t, "score", "--task", "game24", in, in); code != 2 || !strings.Contains(stderr, "give one input") {
		t.Fatalf("two inputs: exit %d %s", code, stderr)
	}
}
