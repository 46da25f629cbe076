package game24

import (
	"slices"
	"testing"
)

func TestPuzzles(t *testing.T) {
	ps, err := Puzzles()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != NumPuzzles {
		t.Fatalf("got %d puzzles, want %d", len(ps), NumPuzzles)
	}
	// Spot checks against data/24.csv (line = Index + 2).
	for _, c := range []struct {
		index, rank int
		text        string
		rate        float64
	}{
		{0, 1, "1 1 4 6", 0.992},
		{899, 900, "1 3 3 11", 0.882},
		{900, 901, "4 5 6 10", 0.903}, // first puzzle of the ToT test range 900:1000
		{901, 902, "1 2 4 7", 0.891},
		{1361, 1362, "2 3 5 12", 0.207},
	} {
		p := ps[c.index]
		if p.Index != c.index || p.Rank != c.rank || p.Text() != c.text || p.SolvedRate != c.rate {
			t.Errorf("row %d = %+v (text %q), want rank %d %q rate %v", c.index, p, p.Text(), c.rank, c.text, c.rate)
		}
	}
	seen := map[string]bool{}
	for i, p := range ps {
		if p.Index != i || p.Rank != i+1 || len(p.Numbers) != 4 || p.SolvedRate <= 0 || p.SolvedRate > 1 {
			t.Errorf("row %d: %+v", i, p)
		}
		k := FormatState(Rats(p.Numbers))
		if seen[k] {
			t.Errorf("row %d: duplicate puzzle %s", i, k)
		}
		seen[k] = true
	}
	// Callers get a copy.
	ps[0].Numbers[0] = 99
	again, _ := Puzzles()
	if again[0].Numbers[0] != 1 {
		t.Error("Puzzles returned shared storage")
	}
}

func TestParsePuzzle(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"4 5 6 10", []int{4, 5, 6, 10}, false},
		{"  4\t5  6 \n10 ", []int{4, 5, 6, 10}, false},
		{"1 1 1 1", []int{1, 1, 1, 1}, false},
		{"13", []int{13}, false},
		{"", nil, true},
		{"   ", nil, true},
		{"4 5 6 x", nil, true},
		{"4 5 6 1.5", nil, true},
		{"4,5,6,10", nil, true},
		{"99999999999999999999999", nil, true},
	} {
		got, err := ParsePuzzle(c.in)
		if (err != nil) != c.err || !slices.Equal(got, c.want) {
			t.Errorf("ParsePuzzle(%q) = %v, %v; want %v, err=%v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestPuzzleText(t *testing.T) {
	if got := (Puzzle{Numbers: []int{4, 5, 6, 10}}).Text(); got != "4 5 6 10" {
		t.Errorf("Text = %q", got)
	}
}
