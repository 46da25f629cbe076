package qa

import (
	"math/big"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks/gsm8k"
)

// goldNumber reads a solution's own "#### N" line, independently of the
// scorer: the text after "####", commas removed.
func goldNumber(t *testing.T, solution string) *big.Rat {
	t.Helper()
	_, after, ok := strings.Cut(solution, "####")
	if !ok {
		t.Fatalf("no #### in %q", solution)
	}
	v, ok := new(big.Rat).SetString(strings.ReplaceAll(strings.TrimSpace(after), ",", ""))
	if !ok {
		t.Fatalf("#### %q is not a number", after)
	}
	return v
}

// TestSimArithmeticCeiling measures how often the simulator's considered
// chain (every step chosen well, no slip) gives the gold number: the
// ceiling of its accuracy on GSM8K, whatever --sim-skill. The simulator
// itself never sees the gold; only this test compares.
func TestSimArithmeticCeiling(t *testing.T) {
	rows, err := gsm8k.Rows()
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, r := range rows {
		ans, ok := ConsideredAnswer(r.Question)
		if !ok {
			continue
		}
		v, _ := new(big.Rat).SetString(ans)
		if v != nil && v.Cmp(goldNumber(t, r.Answers[0])) == 0 {
			right++
		}
	}
	t.Logf("the considered chain is right on %d of %d problems (%.1f%%)", right, len(rows), 100*float64(right)/float64(len(rows)))
	if right == 0 || right == len(rows) {
		t.Errorf("ceiling %d of %d: the procedure reads nothing, or something it must not", right, len(rows))
	}
}
