package game24

import (
	"math/big"
	"strings"
	"testing"
)

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rat " + s)
	}
	return r
}

func rats(s string) []*big.Rat {
	out := []*big.Rat{}
	for _, f := range strings.Fields(s) {
		out = append(out, rat(f))
	}
	return out
}

func TestParseStep(t *testing.T) {
	for _, c := range []struct {
		in           string
		a, op, b, r  string
		left         string // "-" for no left part
		aD, bD, resD int
	}{
		{"4 * 5 = 20 (left: 6 10 20)", "4", "*", "5", "20", "6 10 20", 0, 0, 0},
		{"  4   *5=20(left:6  10   20)  ", "4", "*", "5", "20", "6 10 20", 0, 0, 0},
		{"10 - 4 = 6 (left: 5 6 6)", "10", "-", "4", "6", "5 6 6", 0, 0, 0},
		{"4 + 5 = 9", "4", "+", "5", "9", "-", 0, 0, 0},
		{"15 / 10 = 1.5 (left: 1.5 10)", "15", "/", "10", "3/2", "3/2 10", 0, 0, 1},
		{"8 / 3 = 2.67 (left: 2.67 11)", "8", "/", "3", "267/100", "267/100 11", 0, 0, 2},
		{"8 / 3 ≈ 2.67 (left: 2.67 11)", "8", "/", "3", "267/100", "267/100 11", 0, 0, 2},
		{"11 / 2.67 ≈ 4.12 (left: 4.12)", "11", "/", "267/100", "103/25", "103/25", 0, 2, 2},
		{"4 × 5 = 20 (left: 6 10 20)", "4", "*", "5", "20", "6 10 20", 0, 0, 0},
		{"8 ÷ 2 = 4 (left: 4)", "8", "/", "2", "4", "4", 0, 0, 0},
		{"10 − 6 = 4 (left: 4 20)", "10", "-", "6", "4", "4 20", 0, 0, 0},
		{"10 / 6 = 5/3 (left: 5/3 9)", "10", "/", "6", "5/3", "5/3 9", 0, 0, 0},
		{"9 - 4/3 = 23/3 (left: 23/3)", "9", "-", "4/3", "23/3", "23/3", 0, 0, 0},
		{"(5/3) * 15 = 25 (left: 25)", "5/3", "*", "15", "25", "25", 0, 0, 0},
		{"9 * ( 5 / 3 ) = 15 (left: 5/3 15)", "9", "*", "5/3", "15", "5/3 15", 0, 0, 0},
		{"8/3 = 2.67 (left: 2.67 11)", "8", "/", "3", "267/100", "267/100 11", 0, 0, 2},
		{"8/3 * 9 = 24 (left: 24)", "8/3", "*", "9", "24", "24", 0, 0, 0},
		{"4 - 5 = -1 (left: -1 6 10)", "4", "-", "5", "-1", "-1 6 10", 0, 0, 0},
		{"-1 * 6 = -6 (left: −6 10)", "-1", "*", "6", "-6", "-6 10", 0, 0, 0},
		{"4 - -1 = 5", "4", "-", "-1", "5", "-", 0, 0, 0},
		{"4 * 6 = 24 (left: 24)", "4", "*", "6", "24", "24", 0, 0, 0},
		{"4 * 6 = 24 (Left: 24", "4", "*", "6", "24", "24", 0, 0, 0},
		{"4 * 6 = 24 (left: )", "4", "*", "6", "24", "", 0, 0, 0},
		{"4 * 6 = 24 (left: 1, 2,3)", "4", "*", "6", "24", "1 2 3", 0, 0, 0},
		{"4 * 6 = 24 (left: 24) done", "4", "*", "6", "24", "24", 0, 0, 0},
		{"6 / 10 = 0.6 (left: 0.6 11)", "6", "/", "10", "3/5", "3/5 11", 0, 0, 1},
		{"1.625 + 8 = 9.625 (left: 9.625)", "13/8", "+", "8", "77/8", "77/8", 3, 0, 3},
	} {
		st, err := ParseStep(c.in)
		if err != nil {
			t.Errorf("ParseStep(%q): %v", c.in, err)
			continue
		}
		if st.A.Cmp(rat(c.a)) != 0 || string(st.Op) != c.op || st.B.Cmp(rat(c.b)) != 0 || st.Result.Cmp(rat(c.r)) != 0 ||
			st.ADecimals != c.aD || st.BDecimals != c.bD || st.ResultDecimals != c.resD {
			t.Errorf("ParseStep(%q) = %s %c %s = %s (decimals %d %d %d); want %s %s %s = %s (%d %d %d)", c.in,
				st.A.RatString(), st.Op, st.B.RatString(), st.Result.RatString(), st.ADecimals, st.BDecimals, st.ResultDecimals,
				c.a, c.op, c.b, c.r, c.aD, c.bD, c.resD)
		}
		if c.left == "-" {
			if st.HasLeft || st.Left != nil {
				t.Errorf("ParseStep(%q): HasLeft %v Left %v, want none", c.in, st.HasLeft, st.Left)
			}
			continue
		}
		if !st.HasLeft || st.Left == nil || joinRats(st.Left) != joinRats(rats(c.left)) {
			t.Errorf("ParseStep(%q): left %v [%s], want [%s]", c.in, st.HasLeft, joinRats(st.Left), joinRats(rats(c.left)))
		}
	}
}

func TestParseStepErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"Steps:",
		"Answer: (4 * 5) + (10 - 6) = 24",
		"No solution found.",
		"4 * 5",
		"4 * 5 =",
		"4 * = 20",
		"4 ^ 5 = 1024",
		"4 ** 5 = 1024",
		"4 x 5 = 20",
		"10 * 8 / 10 = 24 (left: 24)",
		"9 * (3 - 1) = 24 (left: 24)",
		"4 * 5 = 20 (right: 6 10 20)",
		"4 * 5 = 20 (left 6 10 20)",
		"4 * 5 = 20 (left: 6 ten 20)",
		"4 * 5 = 20 or so",
		"4 / 0/0 = 1",
		"(4/0) * 5 = 1",
		"(4 * 5 = 20",
		"1. 4 * 5 = 20",
		"4 * 5 = 20 (left: 6 10 20)" + strings.Repeat(" ", MaxStepLen),
		"4 * 5 = \xff",
	} {
		if st, err := ParseStep(in); err == nil {
			t.Errorf("ParseStep(%q) = %+v, want error", in, st)
		}
	}
}

// stepLines returns the lines of a published output that are neither empty
// nor the Answer line: in ToT outputs these are all step lines.
func stepLines(output string) []string {
	var out []string
	for _, l := range strings.Split(output, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(strings.ToLower(t), "answer:") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func TestParseStepPublishedToT(t *testing.T) {
	n := 0
	for _, r := range loadPublished(t) {
		if r.Method != "tot" {
			continue
		}
		for _, l := range stepLines(r.Output) {
			n++
			st, err := ParseStep(l)
			if err != nil {
				t.Errorf("idx %d: ParseStep(%q): %v", r.Idx, l, err)
				continue
			}
			// ToT's lines have no arithmetic slips (the CoT ones do).
			if _, err := Apply([]*big.Rat{st.A, st.B}, st); err != nil {
				t.Errorf("idx %d: %q: %v", r.Idx, l, err)
			}
		}
	}
	if n != 359 {
		t.Errorf("found %d ToT step lines, want 359", n)
	}
}

// TestApplyPublishedChains follows each ToT output from the puzzle with
// exact states. Every output the paper scored correct must go through and
// end at 24. Many others go wrong because the model's "(left: ...)" was wrong
// and it then used a number it no longer had; Apply catches that.
func TestApplyPublishedChains(t *testing.T) {
	broken := 0
	for _, r := range loadPublished(t) {
		if r.Method != "tot" {
			continue
		}
		nums, _ := ParsePuzzle(r.Puzzle)
		state := Rats(nums)
		var err error
		for _, l := range stepLines(r.Output) {
			st, perr := ParseStep(l)
			if perr != nil {
				t.Fatalf("%q: %v", l, perr)
			}
			if state, err = Apply(state, st); err != nil {
				break
			}
		}
		if err != nil {
			broken++
		}
		if r.Reward == 1 && (err != nil || FormatState(state) != "24") {
			t.Errorf("idx %d correct output: state %s, err %v", r.Idx, FormatState(state), err)
		}
	}
	if broken == 0 {
		t.Error("expected some ToT chains to use numbers they no longer had")
	}
	// Examples from the data: the written left is wrong; Apply's is exact.
	st, _ := ParseStep("15 - 10 = 5 (left: 5 10)")
	next, err := Apply(rats("10 15"), st)
	if err != nil || FormatState(next) != "5" || FormatState(st.Left) != "5 10" {
		t.Errorf("15 - 10: %s %v", FormatState(next), err)
	}
	st, _ = ParseStep("5 + 10 = 15 (left: 15)")
	if _, err := Apply(next, st); err == nil {
		t.Error("5 + 10 from [5] should fail")
	}
}

func TestApplyPublishedCoTArithmetic(t *testing.T) {
	wrong := 0
	for _, r := range loadPublished(t) {
		if r.Method != "cot" {
			continue
		}
		for _, l := range stepLines(r.Output) {
			st, err := ParseStep(l)
			if err != nil {
				continue // CoT outputs contain prose lines
			}
			if _, err := Apply([]*big.Rat{st.A, st.B}, st); err != nil {
				if !strings.Contains(err.Error(), "wrong arithmetic") {
					t.Errorf("%q: %v", l, err)
				}
				wrong++
			}
		}
	}
	if wrong < 100 {
		t.Errorf("found only %d CoT steps with wrong arithmetic, e.g. \"2 * 10 = 24\"", wrong)
	}
}

func TestApply(t *testing.T) {
	for _, c := range []struct {
		state, line, want string // want: next state (FormatState) or "error: <part>"
	}{
		{"4 5 6 10", "4 * 5 = 20 (left: 6 10 20)", "6 10 20"},
		{"4 5 6 10", "4 * 5 = 20", "6 10 20"},
		{"4 5 6 10", "4 * 5 = 20 (left: 1 2 3)", "6 10 20"}, // Left is not trusted
		{"4 5 6 10", "5 * 4 = 20", "6 10 20"},
		{"4 5 6 10", "4 * 5 = 21", "error: wrong arithmetic"},
		{"4 5 6 10", "10 - 6 = 3", "error: wrong arithmetic"},
		{"4 5 6 10", "4 * 7 = 28", "error: 7 is not among"},
		{"4 5 6 10", "4 * 4 = 16", "error: 4 is not among the remaining"},
		{"4 4 6 10", "4 * 4 = 16", "6 10 16"},
		{"4 5 6 10", "4 - 5 = -1", "-1 6 10"},
		{"6 10", "6 / 10 = 0.6", "3/5"},
		{"6 10 11", "6 / 10 = 3/5", "3/5 11"},
		{"3 8", "8 / 3 = 2.67 (left: 2.67)", "8/3"},
		{"3 8", "8 / 3 ≈ 2.67", "8/3"},
		{"3 8", "8 / 3 = 2.7", "8/3"},
		{"3 8", "8 / 3 = 2.666667", "8/3"},
		{"3 8", "8 / 3 = 8/3", "8/3"},
		{"3 8", "8 / 3 = 2.66", "error: wrong arithmetic: 8 / 3 = 8/3, not 2.66"}, // truncated, not rounded
		{"3 8", "8 / 3 = 2.6", "error: wrong arithmetic"},
		{"3 8", "8 / 3 = 3", "error: wrong arithmetic"}, // an integer result must be exact
		{"3 8", "8/3 = 2.67", "8/3"},
		{"8/3 9", "2.67 * 9 = 24", "24"}, // a rounded operand matches the exact number
		{"8/3 9", "2.67 * 9 = 24.03", "error: wrong arithmetic"},
		{"8/3 9", "8/3 * 9 = 24", "24"},
		{"8/3 9", "(8/3) * 9 = 24", "24"},
		{"8/3 9", "2.6 * 9 = 24", "error: 2.6 is not among"},
		{"8/3 11", "11 / 2.67 ≈ 4.12", "33/8"}, // exact 4.125,
		{"1 0", "1 / 0 = 0", "error: division by zero"},
		{"1 0", "0 / 1 = 0", "0"},
		{"", "1 + 1 = 2", "error: not among"},
	} {
		st, err := ParseStep(c.line)
		if err != nil {
			t.Errorf("ParseStep(%q): %v", c.line, err)
			continue
		}
		in := rats(c.state)
		before := FormatState(in)
		next, err := Apply(in, st)
		got := FormatState(next)
		if err != nil {
			got = "error: " + err.Error()
		}
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Apply([%s], %q) = %s, want error containing %q", c.state, c.line, got, want)
			}
		} else if err != nil || got != c.want {
			t.Errorf("Apply([%s], %q) = %s, want %s", c.state, c.line, got, c.want)
		}
		if FormatState(in) != before {
			t.Errorf("Apply modified its input state")
		}
	}
	// Hand-built steps without decimals are exact; incomplete ones are errors.
	if _, err := Apply(rats("3 8"), Step{A: rat("8"), B: rat("3"), Op: '/', Result: rat("2.67")}); err == nil {
		t.Error("exact comparison expected when ResultDecimals is 0")
	}
	if _, err := Apply(rats("3 8"), Step{A: rat("8"), B: rat("3"), Op: '%', Result: rat("2")}); err == nil {
		t.Error("unknown operator accepted")
	}
	if _, err := Apply(rats("3 8"), Step{}); err == nil {
		t.Error("empty step accepted")
	}
	if next, err := Apply([]*big.Rat{nil, rat("3"), rat("8")}, Step{A: rat("8"), B: rat("3"), Op: '+', Result: rat("11")}); err != nil || FormatState(next) != "11" {
		t.Errorf("nil entries: %v %v", next, err)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"20", "20"}, {"-3", "-3"}, {"8/3", "8/3"}, {"-8/3", "-8/3"}, {"1.5", "3/2"}, {"0", "0"}, {"6/3", "2"},
	} {
		if got := FormatNumber(rat(c.in)); got != c.want {
			t.Errorf("FormatNumber(%s) = %q, want %q", c.in, got, c.want)
		}
	}
	if FormatNumber(nil) != "" {
		t.Error("FormatNumber(nil)")
	}
	if got := FormatState(rats("20 6 10 -1 8/3")); got != "-1 8/3 6 10 20" {
		t.Errorf("FormatState = %q", got)
	}
	if got := FormatState(nil); got != "" {
		t.Errorf("FormatState(nil) = %q", got)
	}
}
