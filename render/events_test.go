package render

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
)

func TestWriteEvents(t *testing.T) {
	evs := []events.Event{
		{Kind: events.Model, Step: "t0/s1", Call: "t0/s1/react", Role: "model", CallID: 4, Purpose: "react", PromptTokens: 10, CompletionTokens: 2, LatencyMS: 1.5, Cached: true},
		{Kind: events.Tool, Step: "t0/s1", Seq: 1, Server: "calc", Tool: "get-sum", Arguments: []byte(`{"a":1}`), Result: "2\nlines", LatencyMS: 3, Cached: true},
		{Kind: events.User, Step: "t0/s1", Seq: 2, Text: "thanks"},
		{Kind: events.Verifier, Step: "s0", Call: "s0/verify", Scores: []float64{0.5, 1}},
		{Kind: events.Verdict, Correct: true, Score: 1, Answer: "42"},
	}
	var b strings.Builder
	if err := WriteEvents(&b, evs); err != nil {
		t.Fatal(err)
	}
	want := `  step t0/s1:
    model call #4 model t0/s1/react (react): 12 tokens (10 in, 2 out), 1.5 ms, cache hit
    tool call calc get-sum {"a":1} -> 2 lines (3.0 ms, replayed)
    user: thanks
  step s0:
    verifier s0/verify: scores 0.500 1.000
  item:
    verdict correct, score 1, answer 42
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := clipLine(strings.Repeat("é", 10), 5); got != "éé…" {
		t.Errorf("clipLine cut a rune: %q", got)
	}
}
