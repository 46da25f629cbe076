package squad

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"lower and spaces", "  Hello\t\nWORLD  ", "hello world"},
		{"ascii punctuation", "Bath, Maine!", "bath maine"},
		{"all of string.punctuation", "x" + asciiPunct + "y", "xy"},
		{"punctuation joins words", "Teen Titans Go!", "teen titans go"},
		{"hyphen removed, not spaced", "super-regional", "superregional"},
		{"articles", "A man, a plan, a canal: Panama", "man plan canal panama"},
		{"article the", "The Bad Hemingway Contest", "bad hemingway contest"},
		{"article an", "an apple", "apple"},
		{"articles only", "a an the", ""},
		{"article inside word kept", "theatre anthem banana", "theatre anthem banana"},
		{"punct removed before articles", "the-end a.b", "theend ab"},
		{"underscore is punctuation", "the_end", "theend"},
		{"unicode letter is word char", "thé aß", "thé aß"},
		{"unicode punct is a boundary", "the–end", "–end"},
		{"combining mark is not a word char", "a\u0301", "\u0301"},
		{"unicode kept", "Gesellschaft mit beschränkter Haftung", "gesellschaft mit beschränkter haftung"},
		{"unicode upper", "GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG", "gesellschaft mit beschränkter haftung"},
		{"unicode punctuation kept (en dash)", "the Cold War (1947–91)", "cold war 1947–91"},
		{"ascii hyphen removed", "the Cold War (1947-91)", "cold war 194791"},
		{"curly quotes kept", "“Love and Theft”", "“love and theft”"},
		{"ascii quotes removed", `"Read It and Weep" (2006)`, "read it and weep 2006"},
		{"unicode whitespace collapses", "New\u00a0York\u2003City", "new york city"},
		{"python str.split separators", "new\x1cyork\x1f city", "new york city"},
		{"zero width space is not whitespace", "new\u200byork", "new\u200byork"},
		{"invalid utf8 replaced", "x\xffy", "x\uFFFDy"},
		{"invalid utf8 is non-word", "a\xff", "\uFFFD"},
		{"digits", "10 January 1920", "10 january 1920"},
		{"initials", "J. R. R. Tolkien", "j r r tolkien"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Normalize(tt.want); got != tt.want {
				t.Errorf("not idempotent: Normalize(%q) = %q", tt.want, got)
			}
		})
	}
}

func TestExactMatch(t *testing.T) {
	tests := []struct {
		pred, gold string
		want       bool
	}{
		{"Paris", "paris", true},
		{"The Bears.", "Bears", true},
		{"bath maine", "Bath, Maine", true},
		{"GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG", "Gesellschaft mit beschränkter Haftung", true},
		{"Gesellschaft mit beschrankter Haftung", "Gesellschaft mit beschränkter Haftung", false},
		{"Yes", "yes", true},
		{"yes", "no", false},
		{"", "", true},
		{"", "Paris", false},
		{"1947-91", "1947–91", false}, // official: only ASCII punctuation is stripped
		{"“Paris”", "Paris", false},   // ExtractAnswer strips such quotes, Normalize does not
	}
	for _, tt := range tests {
		if got := ExactMatch(tt.pred, tt.gold); got != tt.want {
			t.Errorf("ExactMatch(%q, %q) = %v, want %v", tt.pred, tt.gold, got, tt.want)
		}
	}
}

func TestF1(t *testing.T) {
	tests := []struct {
		name       string
		pred, gold string
		f1, p, r   float64
	}{
		{name: "exact", pred: "Paris", gold: "paris", f1: 1, p: 1, r: 1},
		{name: "yes/yes", pred: "Yes.", gold: "yes", f1: 1, p: 1, r: 1},
		{name: "yes/no", pred: "yes", gold: "no", f1: 0, p: 0, r: 0},
		{name: "pred yes, gold longer", pred: "yes", gold: "yes indeed", f1: 0, p: 0, r: 0},
		{name: "gold no, pred longer", pred: "no way", gold: "no", f1: 0, p: 0, r: 0},
		{name: "noanswer/noanswer", pred: "noanswer", gold: "NoAnswer", f1: 1, p: 1, r: 1},
		{name: "noanswer vs text", pred: "noanswer", gold: "Paris", f1: 0, p: 0, r: 0},
		{name: "yes as a token is fine", pred: "yes it is", gold: "it is yes sir", f1: 2 * 0.75 / 1.75, p: 1, r: 0.75},
		{name: "punctuation", pred: "Bath, Maine.", gold: "Bath Maine", f1: 1, p: 1, r: 1},
		{name: "articles", pred: "the Oklahoma Sooners", gold: "Oklahoma Sooners", f1: 1, p: 1, r: 1},
		// pred tokens: gmbh gesellschaft mit beschränkter haftung (5); gold 4; common 4.
		{name: "unicode partial", pred: "GmbH: Gesellschaft mit beschränkter Haftung", gold: "Gesellschaft mit beschränkter Haftung", f1: 8.0 / 9, p: 0.8, r: 1},
		// beschrankter != beschränkter: common 3 of 4 each side.
		{name: "unicode accent differs", pred: "Gesellschaft mit beschrankter Haftung", gold: "Gesellschaft mit beschränkter Haftung", f1: 0.75, p: 0.75, r: 0.75},
		// pred "cat cat cat" vs gold "cat dog cat": common cat = min(3,2) = 2.
		{name: "repeated tokens", pred: "the the cat cat cat", gold: "cat dog cat", f1: 2.0 / 3, p: 2.0 / 3, r: 2.0 / 3},
		// pred new york new york (4) vs gold new york city (3): common 2.
		{name: "repeated tokens 2", pred: "New York, New York", gold: "New York City", f1: 4.0 / 7, p: 0.5, r: 2.0 / 3},
		{name: "no overlap", pred: "London", gold: "Paris", f1: 0, p: 0, r: 0},
		{name: "empty prediction", pred: "", gold: "Paris", f1: 0, p: 0, r: 0},
		{name: "prediction only articles", pred: "the", gold: "Paris", f1: 0, p: 0, r: 0},
		{name: "both empty (official: 0)", pred: "", gold: "", f1: 0, p: 0, r: 0},
		{name: "unicode dash token", pred: "Cold War (1947–91)", gold: "the Cold War (1947–91)", f1: 1, p: 1, r: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f1, p, r := F1(tt.pred, tt.gold)
			if !near(f1, tt.f1) || !near(p, tt.p) || !near(r, tt.r) {
				t.Errorf("F1(%q, %q) = (%v, %v, %v), want (%v, %v, %v)", tt.pred, tt.gold, f1, p, r, tt.f1, tt.p, tt.r)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", "The Bears", "a an the", "Gesellschaft mit beschränkter Haftung", "the–end",
		"x\xffy", "a\u0301", "İstanbul", "ΟΔΟΣ", "\u0345", "ǅ", "ﬃ", "a_b", " \t\n", strings.Repeat("the ", 50),
	} {
		f.Add(s, "Paris")
	}
	f.Fuzz(func(t *testing.T, s, gold string) {
		n := Normalize(s)
		if n2 := Normalize(n); n2 != n {
			t.Fatalf("not idempotent: Normalize(%q) = %q, Normalize of that = %q", s, n, n2)
		}
		if !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q is not valid UTF-8", s, n)
		}
		if n != strings.TrimSpace(n) || strings.Contains(n, "  ") {
			t.Fatalf("Normalize(%q) = %q has untidy spaces", s, n)
		}
		if strings.ContainsAny(n, asciiPunct) {
			t.Fatalf("Normalize(%q) = %q has ASCII punctuation", s, n)
		}
		for _, w := range strings.Fields(n) {
			if w == "a" || w == "an" || w == "the" {
				t.Fatalf("Normalize(%q) = %q keeps an article", s, n)
			}
		}
		if !ExactMatch(s, s) {
			t.Fatalf("ExactMatch(%q, itself) = false", s)
		}
		f1, p, r := F1(s, gold)
		for _, v := range []float64{f1, p, r} {
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("F1(%q, %q) = (%v, %v, %v) out of range", s, gold, f1, p, r)
			}
		}
		if f1s, _, _ := F1(s, s); n != "" && f1s != 1 {
			t.Fatalf("F1(%q, itself) = %v, want 1", s, f1s)
		}
	})
}

// TestNormalizeASCIIMatchesTheSteps: the one-pass ASCII normaliser gives
// what the step-by-step one gives, on texts drawn from every ASCII byte
// with articles, punctuation inside words and runs of spaces over-weighted.
func TestNormalizeASCIIMatchesTheSteps(t *testing.T) {
	parts := []string{"a", "an", "the", "The", "THE", "A", " ", "  ", "\t", "\n", "\x1c", "\x1f", "\x0b", "'", "_", "-", ".",
		"x", "Paris", "42", "an't", "the_", "_the", "a.n", "t-h-e", "\x00", "\x7f", "\x01"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			if rng.IntN(3) == 0 {
				b.WriteByte(byte(rng.IntN(128)))
			} else {
				b.WriteString(parts[rng.IntN(len(parts))])
			}
		}
		s := b.String()
		if got, want := normalizeASCII(s), normalizeText(s); got != want {
			t.Fatalf("normalizeASCII(%q) = %q, normalizeText %q", s, got, want)
		}
	}
}
