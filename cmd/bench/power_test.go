package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/stats"
)

func TestPower(t *testing.T) {
	t.Parallel()
	// Connor (1987): n = ceil((z(0.975)·√ψ + z(0.8)·√(ψ − δ²))² / δ²);
	// values from python3 stats/testdata/reference.py (statistics.NormalDist).
	cases := []struct {
		args  []string
		items int
		delta float64
	}{
		{[]string{"--p0", "0.5", "--delta", "0.1", "--discordant", "0.2"}, 155, 0.1},
		{[]string{"--p0", "0.3", "--delta", "0.05", "--discordant", "0.3", "--power", "0.9"}, 1257, 0.05},
		{[]string{"--p0", "0.4", "--delta", "0.2", "--discordant", "0.25", "--alpha", "0.01"}, 71, 0.2},
		// Without --discordant: ψ = p1(1−p0) + p0(1−p1) = 0.5 → 391.
		{[]string{"--p0", "0.5", "--delta", "0.1"}, 391, 0.1},
	}
	for _, c := range cases {
		code, out, stderr := cli(t, append([]string{"power", "--json"}, c.args...)...)
		var res struct {
			Items int
			Delta float64
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Items != c.items || res.Delta != c.delta {
			t.Errorf("power %v: exit %d %s %s; want %d items", c.args, code, out, stderr, c.items)
		}
	}
	// The inverse: 155 items detect 0.1 with 20% discordant.
	code, out, _ := cli(t, "power", "--n", "155", "--discordant", "0.2", "--json")
	var inv struct {
		Items int
		Delta *float64
	}
	if code != 0 || json.Unmarshal([]byte(out), &inv) != nil || inv.Delta == nil || abs(*inv.Delta-0.1) > 0.001 {
		t.Errorf("power --n 155: %s", out)
	}
	for _, bad := range [][]string{
		{"power", "--p0", "0.5"},
		{"power", "--p0", "0.5", "--delta", "0.1", "--n", "100"},
		{"power", "--delta", "0.1"},
		{"power", "--p0", "0.5", "--delta", "0.3", "--discordant", "0.2"},
		{"power", "--p0", "0.5", "--delta", "0.1", "--discordant", "0.2", "--pilot", "1,2"},
		{"power", "--p0", "0.5", "--delta", "0.1", "--alpha", "5"},
	} {
		if code, _, stderr := cli(t, bad...); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", bad, code, stderr)
		}
	}
	// --pilot takes the discordant share and p0 from two runs.
	db := filepath.Join(t.TempDir(), "p.db")
	for _, s := range []string{"cot", "io"} {
		if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--range", "900:930", "--strategy", s); code != 0 {
			t.Fatal(stderr)
		}
	}
	code, out, stderr := cli(t, "power", "--db", db, "--pilot", "1,2", "--delta", "0.1")
	if code != 0 || !strings.Contains(out, "pilot runs 1,2") || !strings.Contains(out, "items needed") {
		t.Errorf("--pilot: exit %d %s %s", code, out, stderr)
	}
	// The pilot's share is the discordant items bench compare counts, and
	// the size is Connor's at that share.
	_, cmpOut, _ := cli(t, "compare", "--db", db, "1", "2", "--format", "json")
	var cmp struct {
		Comparisons []struct {
			N            int `json:"n"`
			RunOnly      int `json:"run_only"`
			BaselineOnly int `json:"baseline_only"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(cmpOut), &cmp); err != nil || len(cmp.Comparisons) != 1 {
		t.Fatalf("compare: %v %s", err, cmpOut)
	}
	c := cmp.Comparisons[0]
	psi := float64(c.RunOnly+c.BaselineOnly) / float64(c.N)
	delta := psi / 2
	want, err := stats.ConnorItems(delta, psi, 0.05, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ = cli(t, "power", "--db", db, "--pilot", "1,2", "--delta", strconv.FormatFloat(delta, 'g', -1, 64), "--json")
	var pil struct {
		Items      int     `json:"items"`
		Discordant float64 `json:"discordant"`
	}
	if json.Unmarshal([]byte(out), &pil) != nil || pil.Items != want || abs(pil.Discordant-psi) > 1e-9 {
		t.Errorf("--pilot: %s; want %d items at discordant share %v", out, want, psi)
	}
	for _, bad := range [][]string{{"1,9"}, {"1"}, {"1,2,3"}} {
		if code, _, stderr := cli(t, "power", "--db", db, "--pilot", bad[0], "--delta", "0.01"); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("--pilot %s: exit %d, %q", bad[0], code, stderr)
		}
	}
	if _, _, stderr := cli(t, "power", "--db", db, "--pilot", "1,9", "--delta", "0.01"); !strings.Contains(stderr, "run 9: not found") {
		t.Errorf("--pilot with a missing run: %q", stderr)
	}
}
