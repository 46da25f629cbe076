package strategies

import (
	"encoding/json"
	"testing"
)

// TestDebateCallIdentity: agent a's call in round r is named r<r>/a<a>,
// both from 0, whatever the read side shows beside it: the name keys the
// response cache and a resume, so a stored run must find its calls again.
func TestDebateCallIdentity(t *testing.T) {
	for _, c := range []struct {
		r, a int
		want string
	}{{0, 0, "r0/a0"}, {0, 2, "r0/a2"}, {3, 1, "r3/a1"}, {31, 63, "r31/a63"}} {
		if got := DebateCall(c.r, c.a); got != c.want {
			t.Errorf("DebateCall(%d, %d) = %q, want %q", c.r, c.a, got, c.want)
		}
	}
}

// TestReadingBoNMajorityScores: best-of-N's reader gives its candidates'
// verifier scores under best and weighted, and none under majority, which
// calls no verifier (its zero scores would read as a verifier's).
func TestReadingBoNMajorityScores(t *testing.T) {
	a := "a"
	for _, c := range []struct {
		sel    string
		scored bool
	}{{"best", true}, {"weighted", true}, {"majority", false}} {
		detail, _ := json.Marshal(TTSDetail{Select: c.sel, Candidates: []Candidate{{Key: &a, Score: 0.5}, {Key: &a, Score: 0.7, Correct: true}}})
		s, ok := readBoN(detail)
		if !ok || s.Rule != Rule(c.sel) || (s.Scores != nil) != c.scored || len(s.Correct) != 2 {
			t.Errorf("select=%s: %+v %v; want scores: %v", c.sel, s, ok, c.scored)
		}
	}
}
