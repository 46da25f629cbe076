package main

import (
	"bufio"
	"encoding/json"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
)

// exportedCorrect reads each item's verdict from bench export, a path
// independent of the one bench compare takes.
func exportedCorrect(t *testing.T, db, run string) map[string]bool {
	t.Helper()
	code, out, stderr := cli(t, "export", run, "--db", db)
	if code != 0 {
		t.Fatalf("export %s: %s", run, stderr)
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var it struct {
			Key     *string `json:"key"`
			Correct bool    `json:"correct"`
		}
		if json.Unmarshal(sc.Bytes(), &it) == nil && it.Key != nil {
			got[*it.Key] = it.Correct
		}
	}
	return got
}

// exactMcNemar is 2·P(X ≤ min(b, c)) for X ~ Bin(b+c, 1/2), capped at 1,
// in exact rationals: scipy.stats.binomtest(b, b+c, 0.5).pvalue.
func exactMcNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	sum := new(big.Int)
	for i := 0; i <= min(b, c); i++ {
		sum.Add(sum, new(big.Int).Binomial(int64(n), int64(i)))
	}
	p := new(big.Rat).SetFrac(new(big.Int).Mul(sum, big.NewInt(2)), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	if p.Cmp(big.NewRat(1, 1)) > 0 {
		return 1
	}
	f, _ := p.Float64()
	return f
}

func TestCompare(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "c.db")
	for _, args := range [][]string{
		{"--strategy", "cotsc", "--set", "k=5"},
		{"--strategy", "cot"},
		{"--strategy", "io"},
		{"--strategy", "cot", "--seed", "2"},
	} {
		if code, _, stderr := cli(t, append([]string{"run", "--db", db, "--task", "game24", "--range", "900:940"}, args...)...); code != 0 {
			t.Fatalf("run %v: %s", args, stderr)
		}
	}
	code, out, stderr := cli(t, "compare", "--db", db, "1", "2", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	var doc struct {
		Comparisons []struct {
			Run, Baseline, N           int64
			Accuracy, BaselineAccuracy float64 `json:"-"`
			Difference                 float64
			CI                         []float64
			CIMethod                   string   `json:"ci_method"`
			PValue                     *float64 `json:"p_value"`
			Test                       string
			PHolm                      *float64 `json:"p_holm"`
			RunOnly                    int      `json:"run_only"`
			BaselineOnly               int      `json:"baseline_only"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Comparisons) != 2 {
		t.Fatalf("compare json (%v):\n%s", err, out)
	}
	base := exportedCorrect(t, db, "1")
	var ps []float64
	for i, c := range doc.Comparisons {
		other := exportedCorrect(t, db, []string{"2", "3"}[i])
		b, cc := 0, 0
		for k, ok := range other {
			if ok && !base[k] {
				b++
			} else if !ok && base[k] {
				cc++
			}
		}
		if c.Baseline != 1 || c.N != 40 || c.RunOnly != b || c.BaselineOnly != cc {
			t.Errorf("comparison %d: %+v; want baseline 1, n 40, discordant %d/%d", i, c, b, cc)
		}
		if want := float64(b-cc) / 40; c.Difference != want || c.CI[0] > want || c.CI[1] < want {
			t.Errorf("comparison %d: difference %v in %v, want %v inside", i, c.Difference, c.CI, want)
		}
		if c.PValue == nil || abs(*c.PValue-exactMcNemar(b, cc)) > 1e-9 || c.Test != "McNemar exact" || !strings.Contains(c.CIMethod, "Newcombe") {
			t.Errorf("comparison %d: p %v (%s, %s), want exact McNemar %v", i, c.PValue, c.Test, c.CIMethod, exactMcNemar(b, cc))
		}
		ps = append(ps, *c.PValue)
	}
	// Holm over two: the smaller p doubled, the larger at least that.
	lo, hi := min(ps[0], ps[1]), max(ps[0], ps[1])
	wantLo, wantHi := min(1, 2*lo), max(min(1, 2*lo), hi)
	for i, c := range doc.Comparisons {
		want := wantHi
		if ps[i] == lo {
			want = wantLo
		}
		if c.PHolm == nil || abs(*c.PHolm-want) > 1e-12 {
			t.Errorf("comparison %d: Holm %v, want %v", i, c.PHolm, want)
		}
	}
	// Two cot runs with other seeds pool per item: a paired t on item means.
	code, out, _ = cli(t, "compare", "--db", db, "--baseline", "1", "2", "4")
	if code != 0 || !strings.Contains(out, "2+4") || !strings.Contains(out, " T ") || !strings.Contains(out, "paired t") ||
		!strings.Contains(out, "Minimum detectable difference") {
		t.Errorf("pooled compare (exit %d):\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"compare", "--db", db, "1"},
		{"compare", "--db", db, "2", "4"},
		{"compare", "--db", db, "1", "2", "--format", "xml"},
		{"compare", "--db", db, "1", "2", "--level", "95"},
		{"compare", "--db", db, "1", "x"},
	} {
		if code, _, stderr := cli(t, bad...); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", bad, code, stderr)
		}
	}
	// Runs over other items: no pairs, so no comparison (not a table of
	// zeros with p = 1).
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--range", "950:955", "--strategy", "io"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := cli(t, "compare", "--db", db, "1", "5"); code != 2 || !strings.Contains(stderr, "share no items") {
		t.Errorf("compare over disjoint items: exit %d %q", code, stderr)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestCompareRefusesMixedRules: runs scored by different rules (the paper
// rule and the strict one) are refused in one line naming both and the
// flag; with --allow-mixed-rules the table comes under a warning naming
// the rules.
func TestCompareRefusesMixedRules(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	for _, args := range [][]string{{"--strategy", "cot"}, {"--strategy", "cot", "--rule", "paper"}} {
		if code, _, stderr := cli(t, append([]string{"run", "--db", db, "--task", "game24", "--range", "900:910"}, args...)...); code != 0 {
			t.Fatalf("run %v: %s", args, stderr)
		}
	}
	code, out, stderr := cli(t, "compare", "--db", db, "2", "1")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || out != "" ||
		!strings.Contains(stderr, "game24/paper (run 2)") || !strings.Contains(stderr, "game24/strict (run 1)") || !strings.Contains(stderr, "--allow-mixed-rules") {
		t.Errorf("mixed rules: exit %d, stdout %q, stderr %q; want 2, one line naming both rules and the flag", code, out, stderr)
	}
	code, out, stderr = cli(t, "compare", "--db", db, "2", "1", "--allow-mixed-rules")
	if code != 0 || !strings.HasPrefix(out, "**WARNING: the runs are scored by different rules: game24/paper (run 2); game24/strict (run 1)") ||
		!strings.Contains(stderr, "WARNING") || !strings.Contains(out, "| run |") {
		t.Errorf("--allow-mixed-rules: exit %d:\n%s\nstderr %q", code, out, stderr)
	}
}
