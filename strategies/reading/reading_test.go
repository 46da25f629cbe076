package reading

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestReadSamplesOfOldDetails: items recorded before vote keys were kept
// vote by their samples' extracted answers ("" abstains); garbage and an
// item without samples read as none.
func TestReadSamplesOfOldDetails(t *testing.T) {
	detail := []byte(`{"samples":[{"answer":"3","correct":true},{"answer":"","correct":false},{"answer":"4","correct":false}]}`)
	s, ok := ReadSamples(detail)
	if !reflect.DeepEqual(s.Answers, []string{"3", "", "4"}) {
		t.Errorf("answers %q", s.Answers)
	}
	if !ok || !s.KeysFromAnswers || !reflect.DeepEqual(s.Correct, []bool{true, false, false}) || len(s.Keys) != 3 ||
		s.Keys[0] == nil || *s.Keys[0] != "3" || s.Keys[1] != nil || s.Keys[2] == nil || *s.Keys[2] != "4" {
		t.Errorf("keys from answers: %+v %v", s, ok)
	}
	if s, ok := ReadSamples([]byte(`not json`)); ok || s.Answers != nil {
		t.Errorf("samples of garbage %+v %v", s, ok)
	}
	if _, ok := ReadSamples([]byte(`{"samples":[]}`)); ok {
		t.Error("no samples, yet ok")
	}
}

// TestReadTranscript reads a stored transcript field by field; a CoT-SC
// detail, an empty one and garbage are no transcript.
func TestReadTranscript(t *testing.T) {
	good := []byte(`{"agents":2,"models":["a","b@x"],"rounds":[{"turns":[{"output":"o","key":"5","correct":true},{"output":"","key":null}],"vote":{"key":"5","winner":0},"correct":true}],"judged":"J"}`)
	d, ok := ReadTranscript(good)
	if !ok || d.Agents != 2 || len(d.Rounds) != 1 || d.Rounds[0].Turns[1].Key != nil || *d.Rounds[0].Turns[0].Key != "5" ||
		!d.Rounds[0].Correct || d.Models[1] != "b@x" || d.Judged == nil || *d.Judged != "J" {
		t.Errorf("ReadTranscript = %+v, %v", d, ok)
	}
	for _, bad := range []string{`{"vote":{"key":"5"},"samples":[{"answer":"5"}]}`, `{}`, `null`, `not json`, `{"agents":3,"rounds":[]}`} {
		if _, ok := ReadTranscript([]byte(bad)); ok {
			t.Errorf("a transcript from %s", bad)
		}
	}
}

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

// TestSampledKeysOfAnotherLength: vote keys are used only when there is
// one per sample; keys of another length (fewer or more) are refused and
// the answers stand in for them.
func TestSampledKeysOfAnotherLength(t *testing.T) {
	t.Parallel()
	k := func(s string) *string { return &s }
	answers := []string{"4", "", "5"}
	correct := []bool{true, false, false}
	if s := sampled(RuleVote, []*string{k("four"), nil, k("five")}, answers, correct); s.KeysFromAnswers || *s.Keys[0] != "four" || s.Keys[1] != nil {
		t.Errorf("one key per sample: %+v", s)
	}
	for _, keys := range [][]*string{{k("four"), k("x")}, {k("four"), nil, k("five"), k("six")}} {
		s := sampled(RuleVote, keys, answers, correct)
		if !s.KeysFromAnswers || len(s.Keys) != 3 || *s.Keys[0] != "4" || s.Keys[1] != nil || *s.Keys[2] != "5" {
			t.Errorf("%d keys for 3 samples: keys from answers %v, keys %d", len(keys), s.KeysFromAnswers, len(s.Keys))
		}
	}
}

// TestTreeReader: tot, mcts and lats share one reader of the best node and
// tot's final frontier; a detail without a best node marks none, garbage
// draws nothing, and an unknown strategy has no readers.
func TestTreeReader(t *testing.T) {
	for _, tc := range []struct {
		strategy, detail string
		want             ItemView
	}{
		{"tot", `{"best":3,"final":[3,4],"expansions":9}`, ItemView{Tree: &TreeMarks{Best: 3, Final: []int{3, 4}}}},
		{"tot", `{"final":[1]}`, ItemView{Tree: &TreeMarks{Best: -1, Final: []int{1}}}},
		{"mcts", `{"best":2,"terminals":[2]}`, ItemView{Tree: &TreeMarks{Best: 2}}},
		{"lats", `{"best":5,"tool_calls":[]}`, ItemView{Tree: &TreeMarks{Best: 5}}},
		{"lats", `garbage`, ItemView{}},
		{"no such strategy", `{"best":1}`, ItemView{}},
	} {
		if got := Of(tc.strategy).ViewOf([]byte(tc.detail)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: %+v, want %+v", tc.strategy, tc.detail, got, tc.want)
		}
	}
}
