package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/stats"
)

// TestNoNegativeZero: a gain or difference that rounds to zero prints
// +0.000, never -0.000 (report --by trial's gain, the experiment table's
// vs baseline).
func TestNoNegativeZero(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSeries(&b, "md", "trial", []SeriesRow{{Step: 1, Accuracy: 0.3}, {Step: 2, Accuracy: 0.3, Gain: -1e-17}}); err != nil {
		t.Fatal(err)
	}
	c := &Comparison{Label: "b", Comparison: stats.Comparison{N: 10, Difference: -4e-17, Test: stats.NameMcNemar, CIMethod: stats.MethodNewcombe}}
	groups := []Group{{Strategy: "a", Runs: []Row{{}}, IsBaseline: true}, {Strategy: "b", Runs: []Row{{}}, VsBaseline: c}}
	if err := WriteExperiment(&b, "md", "t", groups); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "-0.000") || strings.Count(b.String(), "+0.000") < 3 {
		t.Errorf("a negative zero:\n%s", b.String())
	}
}
