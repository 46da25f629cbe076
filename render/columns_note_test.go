package render

import (
	"strings"
	"testing"
)

// TestColumnsNote: a Markdown run table with an oracle metric column
// (best_of_k, any_at_b, top1, sample_accuracy) ends with the legend that
// points to the glossary; one without them does not.
func TestColumnsNote(t *testing.T) {
	plain := Row{RunID: 1, Strategy: "cot", N: 10, Accuracy: 0.2, Status: "done", Metrics: map[string]float64{"em": 0.2}}
	for _, c := range []struct {
		name   string
		metric string
		want   bool
	}{
		{"best_of_k", "best_of_k", true},
		{"any_at_b", "any_at_b", true},
		{"top1", "top1", true},
		{"sample_accuracy", "sample_accuracy", true},
		{"em only", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := []Row{plain}
			if c.metric != "" {
				rows = append(rows, Row{RunID: 2, Strategy: "x", N: 10, Accuracy: 0.5, Status: "done", Metrics: map[string]float64{c.metric: 0.5}})
			}
			var b strings.Builder
			if err := Write(&b, "md", rows); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "docs/experiments.md#table-columns"); got != c.want {
				t.Errorf("legend present = %v, want %v:\n%s", got, c.want, b.String())
			}
		})
	}
}
