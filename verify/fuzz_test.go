package verify

import (
	"encoding/json"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// A reward server's output is hostile input: any bytes give scores in
// [0,1] (one for an orm) or an error, never a panic.
func FuzzRewardScores(f *testing.F) {
	for _, s := range []string{`[[0.1,0.9]]`, `[0.5,-1,2]`, `3`, `[]`, `null`, `[[1,2,3]]`, `[[1e308,-1e308]]`, `"x"`} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, orm bool) {
		kind := PRM
		if orm {
			kind = ORM
		}
		s, err := RewardScores(json.RawMessage(raw), kind)
		if err != nil {
			return
		}
		if len(s) == 0 || (orm && len(s) != 1) {
			t.Fatalf("%s: %d scores for a %s", raw, len(s), kind)
		}
		for _, v := range s {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s: score %v", raw, v)
			}
		}
		// What the sampler stores, ParseScores reads back.
		b, _ := json.Marshal(s)
		if back, err := ParseScores(string(b)); err != nil || len(back) != len(s) {
			t.Fatalf("%s: stored %s read back as %v, %v", raw, b, back, err)
		}
	})
}

// A judge's answers are hostile input: P(Yes) is in [0,1] whatever the
// tokens and log probabilities.
func FuzzJudgeScore(f *testing.F) {
	f.Add("Yes", "Yes", -0.1, "No", -2.0)
	f.Add("", " ", 0.0, "no", 5.0)
	f.Fuzz(func(t *testing.T, content, tok string, lp float64, alt string, altLP float64) {
		resp := llm.Response{Choices: []llm.Choice{{Content: content, Logprobs: []llm.TokenLogprob{{Token: tok, Logprob: lp,
			Top: []llm.TopLogprob{{Token: tok, Logprob: lp}, {Token: alt, Logprob: altLP}}}}}, {Content: content}}}
		if p := JudgeScore(resp); !(p >= 0 && p <= 1) {
			t.Fatalf("P(Yes) %v", p)
		}
	})
}
