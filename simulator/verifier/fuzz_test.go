package verifier

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// Any problem and steps: one score per step, each in [0.01, 0.99], and a
// prefix scores as it does inside the whole solution.
func FuzzScores(f *testing.F) {
	f.Add("4 4 6 8", "4 + 8 = 12 (left: 4 6 12)\x006 - 4 = 2 (left: 2 12)\x00Answer: (6 - 4) * (4 + 8) = 24")
	f.Add("Tom has 3 bags.", "3 * 4 = 12\x00<<12/0=1>>\x00(((((1")
	f.Add("", "= = =\x00-\x00$,.=5")
	f.Fuzz(func(t *testing.T, problem, joined string) {
		steps := strings.Split(joined, "\x00")
		p := sim.DefaultParams()
		s := Scores(problem, steps, p)
		if len(s) != len(steps) {
			t.Fatalf("%d scores for %d steps", len(s), len(steps))
		}
		for _, v := range s {
			if !(v >= 0.01 && v <= 0.99) {
				t.Fatalf("score %v", v)
			}
		}
		if k := len(steps) / 2; k > 0 {
			pre := Scores(problem, steps[:k], p)
			for i := range pre {
				if pre[i] != s[i] {
					t.Fatalf("step %d: %v in the prefix, %v in the whole", i, pre[i], s[i])
				}
			}
		}
	})
}
