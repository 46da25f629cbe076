package hotpotqa

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

func TestLATSTemplatesCarryTheMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for name, markers := range map[string][]string{
		"lats_react": {markerReAct, markerReActText},
		"lats_value": {markerLATSValue},
	} {
		text, ok := lib.Text("hotpotqa/" + name)
		if !ok {
			t.Fatalf("no template hotpotqa/%s", name)
		}
		for _, m := range markers {
			if !strings.Contains(text, m) {
				t.Errorf("hotpotqa/%s lacks %q", name, m)
			}
		}
		if strings.Contains(text, markerQA) || strings.Contains(text, sim.NamedFailure) || strings.Contains(strings.ToLower(text), reading.MarkerLastStep) {
			t.Errorf("hotpotqa/%s carries another prompt's marker", name)
		}
	}
}

// TestSimLATSValueFollowsPagesFound: a trajectory that read the page of a
// name the question gives scores above one whose searches failed.
func TestSimLATSValueFollowsPagesFound(t *testing.T) {
	qs, err := hotpotqa.Questions()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs[:20] {
		name := reading.Names(q.Question)[0]
		obs, _ := hotpotqa.NewLocalDocstore(q.Context).Search(context.Background(), name)
		if strings.HasPrefix(obs, "Could not find") {
			continue
		}
		ask := func(traj string) int {
			p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "Rate how promising the trajectory below is.\n\nQuestion: " + q.Question + "\n" + traj}}}
			c, ok := respondLATSValue(p, rand.New(rand.NewPCG(1, 2)), sim.Params{})
			if !ok {
				t.Fatal("value prompt not answered")
			}
			v, ok := parseScore(c.Content)
			if !ok {
				t.Fatalf("no score in %q", c.Content)
			}
			return v
		}
		none := ask("Thought 1: I will search.\nAction 1: Search[Nothing]\nObservation 1: Could not find Nothing. Similar: ['A'].")
		one := ask("Thought 1: I will search.\nAction 1: Search[" + name + "]\nObservation 1: " + obs)
		if !(one > none) {
			t.Errorf("%s: score after reading %s %d, after a failed search %d", q.ID, name, one, none)
		}
	}
}

// parseScore reads "Score: N/10".
func parseScore(s string) (int, bool) {
	_, rest, ok := strings.Cut(s, "Score: ")
	if !ok {
		return 0, false
	}
	n := 0
	for _, r := range rest {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n, true
}
