package hotpotqa

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"
)

func TestXCheckOfficial(t *testing.T) {
	f, err := os.Open("/tmp/xcheck/cases.jsonl")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	bad := 0
	n := 0
	for sc.Scan() {
		var c struct {
			P, G, Np, Ng   string
			Em             bool
			F1, Pr, Rc     float64
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		f1, p, r := F1(c.P, c.G)
		if Normalize(c.P) != c.Np || Normalize(c.G) != c.Ng || ExactMatch(c.P, c.G) != c.Em ||
			math.Abs(f1-c.F1) > 1e-12 || math.Abs(p-c.Pr) > 1e-12 || math.Abs(r-c.Rc) > 1e-12 {
			bad++
			if bad < 15 {
				t.Errorf("%q %q: go %q %q %v %v; py %q %q %v %v", c.P, c.G, Normalize(c.P), Normalize(c.G), ExactMatch(c.P, c.G), f1, c.Np, c.Ng, c.Em, c.F1)
			}
		}
	}
	t.Logf("%d cases, %d mismatches", n, bad)
}
