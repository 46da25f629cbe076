package creative

import (
	"strconv"
	"strings"
	"testing"
)

func TestEndsInInput(t *testing.T) {
	in := "It rained. Tom sang loudly!\n"
	in4 := "A b. C d. Instead of a party E f. G h.\n"
	for _, tc := range []struct {
		input, passage string
		want           bool
	}{
		{in4, "x A b.\n\nyy C d.\n\nz Instead of a party\n\nE f. G h.", true}, // a fragment ends a paragraph
		{in4, "x A b.\n\nyy C d.\n\nInstead of a party E f.\n\nG h.", true},
		{in4, "A b.\n\nC d.\n\nInstead of a party E f. G h.", false}, // three paragraphs
		{in4, "x A b.\n\nC d. y\n\nInstead of a party E f.\n\nG h.", false},
		{in4, "x A  b.\n\n\n\nC\nd.\n\nInstead of a party E f.\n\nG h.\n", true}, // spacing
		{in, "It rained.\n\nTom sang loudly!\n\nx\n\ny", false},
		{"A b’s. C d. E f. G h.", "A b's.\n\nC d.\n\nE f.\n\nG h.", true}, // curly quote
	} {
		if got := EndsInInput(tc.input, tc.passage); got != tc.want {
			t.Errorf("EndsInInput(%q, %q) = %v", tc.input, tc.passage, got)
		}
	}
}

// TestReferenceReadings: scores and votes read as the reference's regular
// expressions do (the last "coherency score is N", its whole number; the
// last digit after the last "best choice is ").
func TestReferenceReadings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"Thus the coherency score is 7", 7},
		{"coherency score is 3\nThus the coherency score is 10.", 10},
		{"no score", 0},
	} {
		if got := MeanScore([]string{tc.in}); got != tc.want {
			t.Errorf("MeanScore(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := MeanScore([]string{"coherency score is 6", "junk", "coherency score is 9"}); got != 7.5 {
		t.Errorf("mean over the answers naming a score = %v, want 7.5", got)
	}
	task := NewTask()
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"The best choice is 3", 2, true},
		{"The best choice is 3.\nOr rather, the best choice is 2, not 4", 3, true},
		{"the best choice is 12", 1, true},
		{"The best choice is 6", 0, false},
		{"The best choice is 0", 0, false},
		{"best choice is none", 0, false},
		{"", 0, false},
	} {
		got, ok := task.ParseVote(tc.in, 5)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseVote(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestInstances(t *testing.T) {
	insts, err := NewTask().Instances()
	if err != nil || len(insts) != 100 {
		t.Fatalf("%d instances, %v", len(insts), err)
	}
	if !strings.HasSuffix(insts[0].Input, "\n") || strings.HasSuffix(insts[99].Input, "\n") {
		t.Error("inputs should keep their newline as read (the last has none)")
	}
}

// FuzzScore: any output scores without panic, correct agrees with the
// constraint metric, and the score and vote readings are the reference's:
// the number right after the last "coherency score is " that a digit
// follows, and the last digit after the last "best choice is " that a
// digit follows somewhere.
func FuzzScore(f *testing.F) {
	f.Add("Plan:\nx\n\nPassage:\na\n\nb")
	f.Add("\x00\xff Passage:\n")
	f.Add("coherency score is 7 and coherency score is x")
	f.Add("coherency score is 9223372036854775807")
	f.Add("the best choice is 3, the best choice is none")
	f.Add("The best choice is \nchoice 4, on reflection")
	task := NewTask()
	insts, _ := task.Instances()
	f.Fuzz(func(t *testing.T, out string) {
		sc := task.Score(insts[1], out)
		if sc.Correct != (sc.Metrics["constraint"] == 1) {
			t.Fatal("correct and constraint disagree")
		}
		const sk = "coherency score is "
		want, wantOK := 0, false
		for i := len(out) - len(sk); i >= 0; i-- {
			if !strings.HasPrefix(out[i:], sk) || i+len(sk) >= len(out) || !isDigit(out[i+len(sk)]) {
				continue
			}
			j := i + len(sk)
			for j < len(out) && isDigit(out[j]) {
				j++
			}
			n, err := strconv.Atoi(out[i+len(sk) : j])
			want, wantOK = n, err == nil
			break
		}
		if n, ok := ParseScore(out); ok != wantOK || n != want {
			t.Fatalf("ParseScore = %d %v, want %d %v", n, ok, want, wantOK)
		}
		if m := MeanScore([]string{out, out, out, out, out}); m != float64(want) {
			t.Fatalf("mean of five equal answers %v, want %v", m, float64(want))
		}
		const vk = "best choice is "
		digit, found := byte(0), false
		for i := len(out) - len(vk); i >= 0 && !found; i-- {
			if !strings.HasPrefix(out[i:], vk) {
				continue
			}
			for j := len(out) - 1; j >= i+len(vk); j-- {
				if isDigit(out[j]) {
					digit, found = out[j], true
					break
				}
			}
		}
		k, ok := task.ParseVote(out, 5)
		if wantOK := found && digit >= '1' && digit <= '5'; ok != wantOK || (ok && k != int(digit-'1')) {
			t.Fatalf("ParseVote = %d %v; the reference's digit %q (found %v)", k, ok, digit, found)
		}
	})
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
