package evaluators

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// judgeByPrompt answers every choice with the word after "judge:" in the prompt.
type judgeByPrompt struct{ calls atomic.Int32 }

func (j *judgeByPrompt) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	j.calls.Add(1)
	p := req.Messages[0].Content
	if p == "fail" {
		return llm.Response{}, errors.New("boom")
	}
	_, word, _ := strings.Cut(p, "judge:")
	var r llm.Response
	for range req.Samples() {
		r.Choices = append(r.Choices, llm.Choice{Content: "reasoning\n" + word})
	}
	return r, nil
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }

func TestValue(t *testing.T) {
	cands := []Candidate{
		{State: "a", Prompt: "judge:sure"},
		{State: "b", Prompt: "judge:likely"},
		{State: "a", Prompt: "judge:sure"},      // duplicate state
		{State: "c", Prompt: "judge:sure"},      // same prompt as a, other state
		{State: "d", Prompt: "", Skip: true},    // worth 0 without a call
		{State: "e", Prompt: "judge:gibberish"}, // unknown word scores 0
	}
	for _, c := range []struct {
		share bool
		want  []float64
	}{
		{false, []float64{60, 3, 0, 60, 0, 0}},
		{true, []float64{60, 3, 60, 60, 0, 0}},
	} {
		s := &judgeByPrompt{}
		v := &Value{Sampler: s, N: 3, Scores: DefaultScores(), Judge: lastLine, ShareDuplicates: c.share, Cache: NewCache()}
		got, st, err := v.Evaluate(context.Background(), "", cands)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("share=%v: values %v, want %v", c.share, got, c.want)
				break
			}
		}
		if st.Calls != 3 || s.calls.Load() != 3 || st.Duplicates != 1 {
			t.Errorf("share=%v: stats %+v, %d calls; want 3 calls (sure, likely, gibberish) and 1 duplicate", c.share, st, s.calls.Load())
		}
		again, st2, _ := v.Evaluate(context.Background(), "", cands[:2])
		if st2.CacheHits != 2 || st2.Calls != 0 || again[0] != 60 {
			t.Errorf("second pass: %+v %v, want 2 cache hits", st2, again)
		}
	}
	v := &Value{Sampler: &judgeByPrompt{}, N: 1, Scores: DefaultScores(), Judge: lastLine}
	if _, _, err := v.Evaluate(context.Background(), "", []Candidate{{State: "x", Prompt: "fail"}}); err == nil {
		t.Error("sampler error not returned")
	}
}

type voter struct{ answers []string }

func (v voter) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	var r llm.Response
	for i := range req.Samples() {
		r.Choices = append(r.Choices, llm.Choice{Content: v.answers[i%len(v.answers)]})
	}
	return r, nil
}

func TestVote(t *testing.T) {
	parse := func(s string, n int) (int, bool) {
		if len(s) != 1 || s[0] < '1' || int(s[0]-'0') > n {
			return 0, false
		}
		return int(s[0] - '1'), true
	}
	v := &Vote{Sampler: voter{[]string{"2", "2", "1", "junk", "9"}}, N: 5, Parse: parse}
	counts, invalid, err := v.Evaluate(context.Background(), "", "which?", 3)
	if err != nil {
		t.Fatal(err)
	}
	if counts[0] != 1 || counts[1] != 2 || counts[2] != 0 || invalid != 2 {
		t.Errorf("counts %v invalid %d", counts, invalid)
	}
}
