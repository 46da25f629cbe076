package game24

import (
	"math/big"
	"slices"
	"strings"
	"testing"
)

func TestSolvable(t *testing.T) {
	for _, c := range []struct {
		state string
		want  bool
	}{
		{"1 1 1 1", false},
		{"4 5 6 10", true},
		{"1 5 5 5", true},  // 5 * (5 - 1/5)
		{"3 3 8 8", true},  // 8 / (3 - 8/3)
		{"1 3 4 6", true},  // 6 / (1 - 3/4)
		{"1 1 1 2", false}, // max is (1+1+1)*2... = 6
		{"13 13 13 13", false},
		{"1 1 5 5", true}, // 5 * 5 - 1 * 1
		{"1 1 2 2", false},
		{"5 5 5 5", true},   // 5 * 5 - 5 / 5
		{"1 1 11 11", true}, // (1 + 1) * 11 + ... no: (11 + 1) * (1 + 1) = 24
		{"24", true},
		{"23", false},
		{"", false},
		{"6 4", true},
		{"8/3 9", true},
		{"6 10 20", true},
		{"1 5 6", true}, // 6 / (1 - 5/6)... or (5 - 1) * 6
		{"-1 25", true},
		{"0 0 0 24", true},
		{"1 2 3 4 5", true},
	} {
		if got := Solvable(rats(c.state)); got != c.want {
			t.Errorf("Solvable(%s) = %v, want %v", c.state, got, c.want)
		}
	}
	if !Solvable([]*big.Rat{nil, rat("4"), nil, rat("6")}) {
		t.Error("nil entries should be ignored")
	}
}

// TestSolvableAllPuzzles checks the solver against the data: of the 1820
// multisets of four numbers from 1 to 13, exactly the 1362 in 24.csv are
// solvable.
func TestSolvableAllPuzzles(t *testing.T) {
	ps, err := Puzzles()
	if err != nil {
		t.Fatal(err)
	}
	inCSV := map[string]bool{}
	for _, p := range ps {
		inCSV[FormatState(Rats(p.Numbers))] = true
	}
	total, solvable := 0, 0
	for a := 1; a <= 13; a++ {
		for b := a; b <= 13; b++ {
			for c := b; c <= 13; c++ {
				for d := c; d <= 13; d++ {
					total++
					state := Rats([]int{a, b, c, d})
					got := Solvable(state)
					if got {
						solvable++
					}
					if got != inCSV[FormatState(state)] {
						t.Errorf("Solvable(%d %d %d %d) = %v, but in 24.csv: %v", a, b, c, d, got, !got)
					}
				}
			}
		}
	}
	if total != 1820 || solvable != NumPuzzles {
		t.Errorf("%d of %d solvable, want %d of 1820", solvable, total, NumPuzzles)
	}
}

func TestSolutions(t *testing.T) {
	if got := Solutions([]int{1, 5, 5, 5}); !slices.Equal(got, []string{"5 * (5 - 1 / 5)"}) {
		t.Errorf("Solutions(1 5 5 5) = %q", got)
	}
	if got := Solutions([]int{3, 3, 8, 8}); !slices.Equal(got, []string{"8 / (3 - 8 / 3)"}) {
		t.Errorf("Solutions(3 3 8 8) = %q", got)
	}
	for _, nums := range [][]int{{1, 1, 1, 1}, {13, 13, 13, 13}, nil, {-1, 5, 5, 5}} {
		if got := Solutions(nums); got != nil {
			t.Errorf("Solutions(%v) = %q, want nil", nums, got)
		}
	}
	if got := Solutions([]int{24}); !slices.Equal(got, []string{"24"}) {
		t.Errorf("Solutions(24) = %q", got)
	}
	got := Solutions([]int{4, 5, 6, 10})
	for _, want := range []string{"4 * 5 + 10 - 6", "(10 - 6) * 5 + 4", "4 - 10 + 5 * 6", "5 * (10 - 4) - 6"} {
		e := mustParse(t, want)
		found := false
		for _, s := range got {
			if Canonical(mustParse(t, s)) == Canonical(e) {
				found = true
			}
		}
		if !found {
			t.Errorf("Solutions(4 5 6 10) lacks %q: %q", want, got)
		}
	}
	if again := Solutions([]int{10, 6, 5, 4}); !slices.Equal(got, again) {
		t.Errorf("Solutions depends on the order of the numbers:\n%q\n%q", got, again)
	}
}

// TestSolutionsAllPuzzles: every puzzle has solutions, each passes Check,
// and they are distinct by Canonical and sorted.
func TestSolutionsAllPuzzles(t *testing.T) {
	ps, err := Puzzles()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		ps = ps[895:915]
	}
	for _, p := range ps {
		sols := Solutions(p.Numbers)
		if len(sols) == 0 {
			t.Errorf("puzzle %d %s: no solutions", p.Index, p.Text())
		}
		if !slices.IsSorted(sols) {
			t.Errorf("puzzle %d: not sorted", p.Index)
		}
		seen := map[string]bool{}
		for _, s := range sols {
			if v := Check(p.Numbers, "Answer: "+s+" = 24"); !v.Correct {
				t.Errorf("puzzle %d %s: solution %q fails Check: %s", p.Index, p.Text(), s, v.Reason)
			}
			k := Canonical(mustParse(t, s))
			if seen[k] {
				t.Errorf("puzzle %d: duplicate canonical form %s", p.Index, k)
			}
			seen[k] = true
		}
	}
}

func TestMoves(t *testing.T) {
	for _, c := range []struct {
		state string
		n     int
	}{
		{"4 5 6 10", 36},
		{"1 5 5 5", 10}, // (5,5): + * - /; (1,5): + * 1-5 5-1 1/5 5/1
		{"5 5", 4},
		{"0 3", 5}, // 3/0 skipped
		{"0 0", 3}, // 0+0, 0*0, 0-0
		{"7", 0},
		{"", 0},
	} {
		ms := Moves(rats(c.state))
		if len(ms) != c.n {
			var ls []string
			for _, m := range ms {
				ls = append(ls, m.StepLine())
			}
			t.Errorf("Moves(%s): %d moves, want %d:\n%s", c.state, len(ms), c.n, strings.Join(ls, "\n"))
		}
	}
	ms := Moves(rats("4 5 6 10"))
	if got := ms[1].StepLine(); got != "4 * 5 = 20 (left: 6 10 20)" {
		t.Errorf("StepLine = %q", got)
	}
	if m := ms[3]; m.I != 1 || m.J != 0 || m.StepLine() != "5 - 4 = 1 (left: 1 6 10)" {
		t.Errorf("move 3 = %+v %q", m, m.StepLine())
	}
	// Left keeps the remaining entries in order, then the result.
	if got := joinRats(ms[1].Left); got != "6 10 20" {
		t.Errorf("Left = %s", got)
	}
	if got := joinRats(Moves(rats("10 4 6 5"))[0].Left); got != "6 5 14" {
		t.Errorf("Left = %s", got)
	}
}

// TestStepLineRoundTrip: every move's StepLine parses and applies to the
// state it came from, giving the move's Left, and the written Left agrees.
func TestStepLineRoundTrip(t *testing.T) {
	for _, s := range []string{"4 5 6 10", "1 5 5 5", "8/3 9 -2", "0 3 3/7", "13 13 1 2", "6"} {
		state := rats(s)
		for _, m := range Moves(state) {
			line := m.StepLine()
			st, err := ParseStep(line)
			if err != nil {
				t.Errorf("ParseStep(%q): %v", line, err)
				continue
			}
			next, err := Apply(state, st)
			if err != nil {
				t.Errorf("Apply([%s], %q): %v", s, line, err)
				continue
			}
			if FormatState(next) != FormatState(m.Left) || FormatState(st.Left) != FormatState(m.Left) {
				t.Errorf("%q from [%s]: Apply gives %s, written %s, move %s", line, s, FormatState(next), FormatState(st.Left), FormatState(m.Left))
			}
			if Solvable(m.Left) && !Solvable(state) {
				t.Errorf("%q: solvable child of unsolvable state [%s]", line, s)
			}
		}
	}
}

func TestSolvableMatchesMoves(t *testing.T) {
	// Solvable(s) == some move leads to a solvable state.
	for _, s := range []string{"4 5 6 10", "1 1 1 1", "1 5 5 5", "3 3 8 8", "2 3 5 12", "1 2 7 7"} {
		state := rats(s)
		any := false
		for _, m := range Moves(state) {
			if Solvable(m.Left) {
				any = true
			}
		}
		if any != Solvable(state) {
			t.Errorf("%s: moves say %v, Solvable %v", s, any, Solvable(state))
		}
	}
}

func TestSolvableConcurrent(t *testing.T) {
	done := make(chan bool)
	for range 8 {
		go func() {
			ok := Solvable(rats("4 5 6 10")) && !Solvable(rats("1 1 1 1"))
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("wrong result under concurrency")
		}
	}
}

func BenchmarkSolvable(b *testing.B) {
	ps, err := Puzzles()
	if err != nil {
		b.Fatal(err)
	}
	states := make([][]*big.Rat, len(ps))
	for i, p := range ps {
		states[i] = Rats(p.Numbers)
	}
	b.Run("puzzles", func(b *testing.B) {
		i := 0
		for b.Loop() {
			Solvable(states[i%len(states)])
			i++
		}
	})
	// The 458 unsolvable sets of four numbers from 1 to 13: full searches.
	var unsolvable [][]*big.Rat
	for a := 1; a <= 13; a++ {
		for b := a; b <= 13; b++ {
			for c := b; c <= 13; c++ {
				for d := c; d <= 13; d++ {
					if s := Rats([]int{a, b, c, d}); !Solvable(s) {
						unsolvable = append(unsolvable, s)
					}
				}
			}
		}
	}
	b.Run("unsolvable", func(b *testing.B) {
		i := 0
		for b.Loop() {
			Solvable(unsolvable[i%len(unsolvable)])
			i++
		}
	})
	three := rats("6 10 20")
	b.Run("three", func(b *testing.B) {
		for b.Loop() {
			Solvable(three)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	nums := []int{4, 5, 6, 10}
	out := "Steps:\n4 * 5 = 20 (left: 6 10 20)\n10 - 6 = 4 (left: 4 20)\n4 + 20 = 24 (left: 24)\nAnswer: (4 * 5) + (10 - 6) = 24\n"
	for b.Loop() {
		if !Check(nums, out).Correct {
			b.Fatal("wrong")
		}
	}
}

func BenchmarkSolutions(b *testing.B) {
	for b.Loop() {
		Solutions([]int{4, 5, 6, 10})
	}
}

// TestSolvableBigFallback covers values too large for the int64 fast path,
// and checks the fast path against the math/big search.
func TestSolvableBigFallback(t *testing.T) {
	for _, c := range []struct {
		state string
		want  bool
	}{
		{"1099511627776 26388279066624", true},                         // 24*2^40 / 2^40
		{"1073741824 1073741824 24", true},                             // 2^30 - 2^30 + 24; 2^30 * 2^30 overflows the fast path
		{"1073741825 1073741824 23", true},                             // (2^30+1) - 2^30 + 23
		{"1073741824 1073741824 1073741824 1", false},                  //
		{"99999999999999999999999 1/99999999999999999999999 24", true}, // x * (1/x) * 24
	} {
		if got := Solvable(rats(c.state)); got != c.want {
			t.Errorf("Solvable(%s) = %v, want %v", c.state, got, c.want)
		}
		if got := solvable(rats(c.state), map[string]bool{}); got != c.want {
			t.Errorf("solvable(%s) = %v, want %v", c.state, got, c.want)
		}
	}
	n := 0
	for a := 1; a <= 13; a += 2 {
		for b := a; b <= 13; b += 3 {
			for c := b; c <= 13; c++ {
				for _, d := range []string{"1", "7", "8/3", "-5", "0"} {
					s := rats(strings.Join([]string{itoa(a), itoa(b), itoa(c), d}, " "))
					if fast, slow := Solvable(s), solvable(s, map[string]bool{}); fast != slow {
						t.Errorf("%s: fast %v, big %v", FormatState(s), fast, slow)
					}
					n++
				}
			}
		}
	}
	if testing.Verbose() {
		t.Logf("compared %d states", n)
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }
