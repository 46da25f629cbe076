package mathans

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestHendrycksAgreesWithTheReference: testdata/hendrycks_cases.jsonl holds
// 6,779 answer pairs with the verdict hendrycks/math's own is_equiv
// (modeling/math_equivalence.py, run under Python 3) gave each: every MATH-500
// gold answer against two dozen rewritings of itself (spaces, \dfrac, x =,
// units, %, \left, degrees, dollars, braces dropped, a leading ".", \sqrt
// and \frac with nothing after them, two "\text{ " units, ...) and against
// another problem's answer, a grid of edge cases, and the Qwen sample's
// predictions against their golds. Hendrycks must give the same verdict on
// every pair.
func TestHendrycksAgreesWithTheReference(t *testing.T) {
	f, err := os.Open("testdata/hendrycks_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, equal := 0, 0
	for sc.Scan() {
		var c struct {
			A, B  string
			Equiv bool
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		if c.Equiv {
			equal++
		}
		if got := Hendrycks(c.A, c.B); got != c.Equiv {
			t.Errorf("Hendrycks(%q, %q) = %v, the reference says %v", c.A, c.B, got, c.Equiv)
		}
	}
	if n != 6779 || equal != 3010 {
		t.Errorf("%d cases (%d equal), want 6779 (3010)", n, equal)
	}
}

// TestHendrycksExtractAgreesWithTheReference: testdata/hendrycks_extract.json
// is what hendrycks/math's last_boxed_only_string and remove_boxed (run
// under Python) extract from MATH-500's 500 worked solutions, then from the
// Qwen sample's 120 responses, in file order.
func TestHendrycksExtractAgreesWithTheReference(t *testing.T) {
	raw, err := os.ReadFile("testdata/hendrycks_extract.json")
	if err != nil {
		t.Fatal(err)
	}
	var want []*string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	var outputs []string
	f, err := os.Open("../math500/data/math500_test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p struct{ Solution string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, p.Solution)
	}
	for _, r := range readQwenSample(t) {
		outputs = append(outputs, r.Response...)
	}
	if len(outputs) != len(want) || len(want) != 620 {
		t.Fatalf("%d outputs, %d reference answers", len(outputs), len(want))
	}
	for i, out := range outputs {
		got, ok := HendrycksExtract(out)
		if (want[i] == nil) == ok || (ok && got != *want[i]) {
			t.Errorf("output %d: %q, %v; the reference extracts %v", i, got, ok, want[i])
		}
	}
}

// TestFullRuleAcceptsWhatHendrycksAccepts: on the reference cases, every
// pair the original rule calls equal the full rule calls equal too, but 8
// where the original cuts everything after a "\text{ " or "\mbox{ " unit
// and so equates "5.4 \text{ cents}/2" with "5.4 \text{ cents}". The pairs
// only the full rule accepts are counted (values, sets, orders).
func TestFullRuleAcceptsWhatHendrycksAccepts(t *testing.T) {
	f, err := os.Open("testdata/hendrycks_cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	unitCut, onlyFull := 0, 0
	for sc.Scan() {
		var c struct {
			A, B  string
			Equiv bool
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		full := Equal(context.Background(), c.A, c.B)
		switch {
		case c.Equiv && !full:
			if !strings.Contains(c.A+c.B, "\\text{ ") && !strings.Contains(c.A+c.B, "\\mbox{ ") {
				t.Errorf("the original rule accepts %q = %q, the full rule does not", c.A, c.B)
			}
			unitCut++
		case full && !c.Equiv:
			onlyFull++
		}
	}
	t.Logf("%d pairs only the original accepts (its unit cut), %d only the full rule accepts", unitCut, onlyFull)
	if unitCut != 8 {
		t.Errorf("%d pairs only the original accepts, want 8", unitCut)
	}
}
