package prose

import (
	"reflect"
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One.", []string{"One."}},
		{"One. Two? Three! Four", []string{"One.", " Two?", " Three!", " Four"}},
		{"Line one\n\nLine two", []string{"Line one\n", "\nLine two"}}, // a newline ends a sentence before a space or newline only
		{"3.5 metres. Then", []string{"3.5 metres.", " Then"}},         // a decimal point is no sentence end
		{"Ends with space. ", []string{"Ends with space.", " "}},
	} {
		got := Sentences(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("Sentences(%q) joined gives %q", tc.in, strings.Join(got, ""))
		}
	}
}

func TestIsStopword(t *testing.T) {
	for w, want := range map[string]bool{"the": false /* articles: squad.Normalize drops them first */, "of": true, "which": true, "river": false, "": false} {
		if IsStopword(w) != want {
			t.Errorf("IsStopword(%q) = %v", w, !want)
		}
	}
}
