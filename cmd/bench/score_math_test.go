package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench score --task math500 on {idx, output, verifier_score} lines: the
// problem is named by idx, --vote groups by idx without --group-by, and
// --rule hendrycks judges by the string rule.
func TestScoreMath500Votes(t *testing.T) {
	t.Parallel()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	// Problem 0's answer is \left( 3, \frac{\pi}{2} \right).
	os.WriteFile(in, []byte(`{"idx": 0, "output": "\\boxed{(3, \\frac{\\pi}{2})}", "verifier_score": 0.2}
{"idx": 0, "output": "\\boxed{(3, \\pi/2)}", "verifier_score": 0.3}
{"idx": 0, "output": "\\boxed{(0, 3)}", "verifier_score": 0.9}
`), 0o644)
	for _, c := range []struct {
		args  []string
		group string
	}{
		{[]string{"--vote", "answer"}, `"correct":true`},
		{[]string{"--vote", "best"}, `"correct":false`},
		{[]string{"--vote", "weighted"}, `"correct":false`}, // (0,3) 0.9 > 0.5
	} {
		code, out, errOut := cli(t, append([]string{"score", "--task", "math500", "--in", in}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 5 || !strings.Contains(lines[3], c.group) || !strings.Contains(lines[4], `"rule":"math500/math"`) ||
			!strings.Contains(lines[0], `"correct":true`) || !strings.Contains(lines[1], `"correct":true`) || !strings.Contains(lines[2], `"correct":false`) {
			t.Errorf("%v: %d\n%s%s", c.args, code, out, errOut)
		}
	}
	code, out, _ := cli(t, "score", "--task", "math500", "--rule", "hendrycks", "--in", in)
	if code != 0 || !strings.Contains(out, `"accuracy":0.3333333333333333,"rule":"math500/math(hendrycks)"`) {
		t.Errorf("hendrycks: %d\n%s", code, out)
	}
}
