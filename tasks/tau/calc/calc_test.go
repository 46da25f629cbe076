package calc

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
)

// testdata/cases.json.gz is the reference's calculate tool run by CPython
// 3.11 on each expression (testdata/gen_calc.py).
func TestMatchesReference(t *testing.T) {
	file, err := os.Open("testdata/cases.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Expr string `json:"expr"`
			Out  string `json:"out"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 10000 {
		t.Fatalf("%d cases", len(f.Cases))
	}
	bad := 0
	for _, c := range f.Cases {
		if got := Evaluate(c.Expr); got != c.Out {
			bad++
			if bad <= 30 {
				t.Errorf("Evaluate(%q) = %q, want %q", c.Expr, got, c.Out)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d differ", bad, len(f.Cases))
	}
}

// The cases the brief names, spelled out.
func TestTable(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"(250 + 120) * 2 - 30.5", "709.5"},
		{"1/3", "0.33"},
		{"2.675 * 1", "2.67"}, // 2.675 is 2.67499999... in binary
		{"10/4", "2.5"},
		{"100", "100.0"},
		{"1/0", "Error: division by zero"},
		{"1.0/0", "Error: float division by zero"},
		{"1//0", "Error: integer division or modulo by zero"},
		{"1 + x", "Error: invalid characters in expression"},
		{"1e3", "Error: invalid characters in expression"},
		{"01", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"},
		{"(1", "Error: '(' was never closed (<string>, line 1)"},
		{"1)", "Error: unmatched ')' (<string>, line 1)"},
		{"1 +", "Error: invalid syntax (<string>, line 1)"},
		{"", "Error: invalid syntax (<string>, line 0)"},
		{"10**20", "1e+20"},
		{"()", "Error: float() argument must be a string or a real number, not 'tuple'"},
		{"9**9**9", "Error: "},
	}
	for _, tc := range tests {
		if got := Evaluate(tc.expr); got != tc.want {
			t.Errorf("Evaluate(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"1+2", "(1 2)", "((-8)**0.5)", "0(*())", "...", "2**-1", "1//0.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Evaluate(s)
		if got != Evaluate(s) {
			t.Fatal("not deterministic")
		}
		if strings.Trim(s, Allowed) != "" {
			if got != "Error: invalid characters in expression" {
				t.Fatalf("%q passed the filter: %q", s, got)
			}
		}
	})
}
