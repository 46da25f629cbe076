package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestLatexColumns: chosen columns come in the order given, matched in
// any case; an unknown name is a
// ColumnsError listing the table's columns; other formats refuse a choice.
func TestLatexColumns(t *testing.T) {
	groups := Pivot(expRows(), 0.95)
	var b bytes.Buffer
	if err := WriteExperimentColumns(&b, "latex", "exp1", groups, []string{"ACCURACY", "strategy", "saved (cache)"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "accuracy & strategy & saved (cache) \\\\\n\\midrule") || !strings.Contains(out, `\begin{tabular}{rlr}`) {
		t.Errorf("columns not as chosen:\n%s", out)
	}
	if !strings.Contains(out, "0.700 & cot & \\$0.0020, 400 tok") {
		t.Errorf("rows lack the chosen cells:\n%s", out)
	}
	b.Reset()
	err := WriteExperimentColumns(&b, "latex", "exp1", groups, []string{"accuracy", "flops"})
	var ce ColumnsError
	if !errors.As(err, &ce) || ce.Name != "flops" || !strings.Contains(err.Error(), "strategy, params") {
		t.Errorf("unknown column: %v", err)
	}
	if err := WriteColumns(&b, "md", expRows(), []string{"accuracy"}); err == nil {
		t.Error("md with columns: want an error")
	}
	b.Reset()
	if err := WriteColumns(&b, "latex", expRows(), []string{"run", "accuracy"}); err != nil || !strings.Contains(b.String(), "run & accuracy \\\\") {
		t.Errorf("runs table: %v\n%s", err, b.String())
	}
}
