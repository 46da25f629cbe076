package results

import (
	"encoding/json"
	"testing"
)

func TestDebateTranscript(t *testing.T) {
	good := json.RawMessage(`{"agents":2,"models":["a","b@x"],"rounds":[{"turns":[{"output":"o","key":"5","correct":true},{"output":"","key":null}],"vote":{"key":"5","winner":0},"correct":true}],"judged":"J"}`)
	d, ok := Debate(good)
	if !ok || d.Agents != 2 || len(d.Rounds) != 1 || d.Rounds[0].Turns[1].Key != nil || *d.Rounds[0].Turns[0].Key != "5" ||
		!d.Rounds[0].Correct || d.Models[1] != "b@x" || d.Judged == nil || *d.Judged != "J" {
		t.Errorf("Debate = %+v, %v", d, ok)
	}
	// A CoT-SC detail, an empty one and garbage are no transcript.
	for _, bad := range []string{`{"vote":{"key":"5"},"samples":[{"answer":"5"}]}`, `{}`, `null`, `not json`, `{"agents":3,"rounds":[]}`} {
		if _, ok := Debate(json.RawMessage(bad)); ok {
			t.Errorf("a transcript from %s", bad)
		}
	}
}
