package hotpotqa

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
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
		if strings.Contains(text, markerQA) || strings.Contains(text, sim.NamedFailure) || strings.Contains(strings.ToLower(text), markerLastStep) {
			t.Errorf("hotpotqa/%s carries another prompt's marker", name)
		}
	}
}

func TestSimLATSValueFollowsPagesFound(t *testing.T) {
	qs, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	gold := goldTitles(q)
	para, _ := paragraph(q, gold[0])
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
	none := ask("Thought 1: I will search.\nAction 1: Search[Nothing]\nObservation 1: Could not find Nothing.")
	one := ask("Thought 1: I will search.\nAction 1: Search[" + gold[0] + "]\nObservation 1: " + para.Text())
	if !(one > none) {
		t.Errorf("score with a gold page %d, without %d", one, none)
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
