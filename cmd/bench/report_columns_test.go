package main

import (
	"strings"
	"testing"
)

// TestReportLatexColumns: --columns picks a LaTeX table's columns by
// header name, in the order given, for the experiment and the runs table;
// a name the table lacks, or --columns without latex, is a usage error.
func TestReportLatexColumns(t *testing.T) {
	t.Parallel()
	db := experimentDB(t)
	code, out, stderr := cli(t, "report", "--db", db, "--experiment", "exp1", "--format", "latex", "--columns", "accuracy, Strategy,params,95% CI")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	var head string
	for i, l := range lines {
		if l == `\toprule` && i+1 < len(lines) {
			head = lines[i+1]
		}
	}
	if head != `accuracy & strategy & params & 95\% CI \\` || !strings.Contains(out, `\begin{tabular}{rllr}`) {
		t.Errorf("header %q, want the four chosen columns in order:\n%s", head, out)
	}
	if strings.Contains(out, "game24") {
		t.Errorf("the task column, not chosen, is in the table:\n%s", out)
	}
	code, out, stderr = cli(t, "report", "--db", db, "--runs", "1,2", "--format", "latex", "--columns", "run,accuracy")
	if code != 0 || !strings.Contains(out, `run & accuracy \\`) {
		t.Errorf("runs table: exit %d, %s\n%s", code, stderr, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--experiment", "exp1", "--format", "latex", "--columns", "accuracy,flops"}, `no column "flops" in this table (its columns: `},
		{[]string{"--runs", "1", "--format", "latex", "--columns", "flops"}, `no column "flops"`},
		{[]string{"--experiment", "exp1", "--format", "md", "--columns", "accuracy"}, "add --format latex"},
	} {
		code, _, stderr := cli(t, append([]string{"report", "--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
