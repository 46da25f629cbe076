package sim

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// echo answers every prompt with a random number, to observe seeding.
type echo struct{}

func (echo) Respond(p Prompt, rng *rand.Rand, _ Params) (llm.Choice, bool) {
	if strings.Contains(p.Last("user"), "ignore me") {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: "value " + string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26))) + " STOP tail"}, true
}

func TestSampleSeedingAndStop(t *testing.T) {
	m, err := New(DefaultParams(), echo{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}, N: 6, Temperature: llm.Temp(0.7), Seed: 9, Stop: []string{" STOP"}}
	resp, err := m.Sample(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for i, c := range resp.Choices {
		if c.Index != i || strings.Contains(c.Content, "STOP") || !strings.HasPrefix(c.Content, "value ") {
			t.Errorf("choice %d = %+v (stop sequence must be cut)", i, c)
		}
		distinct[c.Content] = true
	}
	if len(distinct) < 3 {
		t.Errorf("6 samples at temperature 0.7 gave %d distinct answers", len(distinct))
	}
	req.Temperature = llm.Temp(0)
	greedy, _ := m.Sample(ctx, req)
	for _, c := range greedy.Choices {
		if c.Content != greedy.Choices[0].Content {
			t.Error("temperature 0 gave different samples")
		}
	}
	req.Messages[0].Content = "ignore me"
	fb, _ := m.Sample(ctx, req)
	if fb.Choices[0].Content != Fallback {
		t.Errorf("unrecognised prompt answered %q, want the fallback", fb.Choices[0].Content)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 || resp.Usage.Requests != 1 {
		t.Errorf("usage %+v", resp.Usage)
	}
	if _, err := m.Sample(ctx, llm.Request{}); err == nil {
		t.Error("a request with no messages succeeded")
	}
}

func TestParamsValidate(t *testing.T) {
	for _, p := range []Params{{Skill: -0.1}, {Slip: 1.5}, {Misjudge: 2}, {Boost: -1}, {Focus: 11}} {
		if _, err := New(p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestPick(t *testing.T) {
	labels := []string{"a", "b", "c", "d", "e", "f"}
	count := func(focus float64) map[int]int {
		rng := rand.New(rand.NewPCG(1, 2))
		c := map[int]int{}
		for range 6000 {
			c[Pick(rng, focus, "state", labels)]++
		}
		return c
	}
	uniform := count(0)
	for i := range labels {
		if uniform[i] < 800 || uniform[i] > 1200 {
			t.Errorf("focus 0: option %d drawn %d of 6000 times, want about 1000", i, uniform[i])
		}
	}
	peaked := count(2)
	top := 0
	for _, n := range peaked {
		top = max(top, n)
	}
	// weights 1, 1/4, 1/9, ...: the favourite takes about 67%.
	if top < 3600 || top > 4400 {
		t.Errorf("focus 2: favourite drawn %d of 6000 times, want about 4000", top)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	if Pick(rng, 2, "x", nil) != -1 || Pick(rng, 2, "x", []string{"only"}) != 0 {
		t.Error("Pick on 0 or 1 option")
	}
}
