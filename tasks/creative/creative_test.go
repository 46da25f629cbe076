package creative

import (
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

func FuzzScore(f *testing.F) {
	f.Add("Plan:\nx\n\nPassage:\na\n\nb")
	f.Add("\x00\xff Passage:\n")
	task := NewTask()
	insts, _ := task.Instances()
	f.Fuzz(func(t *testing.T, out string) {
		sc := task.Score(insts[1], out)
		if sc.Correct != (sc.Metrics["constraint"] == 1) {
			t.Fatal("correct and constraint disagree")
		}
		if k, ok := task.ParseVote(out, 5); ok && (k < 0 || k >= 5) {
			t.Fatalf("vote %d out of range", k)
		}
		_ = MeanScore([]string{out})
	})
}
