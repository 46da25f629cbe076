package qa

import (
	"context"
	"github.com/reasonbench/reasonbench/llm/sim/simtest"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

func TestTemplatesCarryTheMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for name, markers := range map[string][]string{
		"qa/io":                    {markerIO},
		"qa/cot":                   {markerCoT},
		"qa/reflexion_cot":         {markerCoT},
		"qa/react_text":            {markerDocstore, markerReActText},
		"qa/react_json":            {markerDocstore, markerReActJSON},
		"qa/react_tools":           {markerDocstore, markerReActTools},
		"qa/react_xml":             {markerDocstore, sim.MarkerReActXML},
		"qa/reflexion_react_text":  {markerDocstore, markerReActText},
		"qa/reflexion_react_json":  {markerDocstore, markerReActJSON},
		"qa/reflexion_react_tools": {markerDocstore, markerReActTools},
		"qa/lats_react":            {markerDocstore, markerReActText},
		"qa/lats_value":            {markerLATSValue},
		"qa/reflect":               {sim.MarkerReflect},
		"qa/self_eval":             {sim.MarkerSelfEval},
		"qa/feedback":              {sim.MarkerFeedback},
		"qa/refine":                {sim.MarkerRefine},
		"qa/tot_sample":            {markerToTSample, markerToTLast},
		"qa/tot_vote":              {markerToTVote},
		"gsm8k/io":                 {markerIO},
		"gsm8k/cot":                {markerCoT},
	} {
		text, ok := lib.Text(name)
		if !ok {
			t.Errorf("no template %s", name)
			continue
		}
		for _, m := range append(markers, markerQA) {
			if !strings.Contains(text, m) {
				t.Errorf("%s lacks the marker %q", name, m)
			}
		}
		if strings.Contains(text, sim.NamedFailure) || strings.Contains(text, reading.AnsweredMarker) {
			t.Errorf("%s contains what only simulated critiques may say", name)
		}
	}
	// The qa markers must not make other tasks' prompts look like ours.
	for _, n := range lib.Names() {
		if !strings.HasPrefix(n, "qa/") && !strings.HasPrefix(n, "gsm8k/") {
			if text, _ := lib.Text(n); strings.Contains(text, markerQA) {
				t.Errorf("%s contains the qa marker", n)
			}
		}
	}
}

// ask renders a template for a row and asks the qa responder alone.
func ask(t *testing.T, lib *prompts.Library, name string, data any, p sim.Params, n int, seed int64) []string {
	t.Helper()
	text, err := lib.Render(name, data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.New(p, Responder{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: text}}, N: n, Temperature: llm.Temp(0.7), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Texts()
}

type promptData struct{ Input, Context string }

func TestSimSkillScalesAccuracy(t *testing.T) {
	lib, _ := prompts.Bundled()
	rows := []qa.Row{
		{Question: "Tom has 3 apples and buys 5 more apples. How many apples does he have in total?", Answers: []string{"8"}},
		{Question: "A pencil costs 3 dollars. How much do 6 pencils cost?", Answers: []string{"18"}},
		{Question: "Sara had 20 dollars and spent 7 dollars. How many dollars are left?", Answers: []string{"13"}},
		{Question: "Where did Anna Berg open her shop?", Answers: []string{"Lindau"},
			Context: []qa.Paragraph{{Text: "Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902."}, {Text: "Lindau lies on the Amper."}}},
		{Question: "Which colour is the sky on a clear day?", Answers: []string{"B"}, Choices: []string{"green", "blue", "red"},
			Context: []qa.Paragraph{{Text: "On a clear day the sky looks blue."}}},
	}
	accuracy := func(skill float64) float64 {
		p := sim.DefaultParams()
		p.Skill, p.Slip = skill, 0
		right, total := 0, 0
		for _, r := range rows {
			s := qa.ScorerEMF1
			if len(r.Choices) > 0 {
				s = qa.ScorerChoice
			} else if len(r.Context) == 0 {
				s = qa.ScorerNumeric
			}
			sc, err := qa.NewScorer(s, qa.ScorerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			inst := tasks.Instance{Data: r}
			passages, err := (*qa.ContextTask)(nil).RenderContext(inst, qa.ContextGold)
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range ask(t, lib, "qa/cot", promptData{Input: r.Input(), Context: passages}, p, 20, 7) {
				total++
				if ans, ok := sc.Answer(out); ok && sc.Score(r, ans).Correct {
					right++
				}
			}
		}
		return float64(right) / float64(total)
	}
	hi, lo := accuracy(1), accuracy(0)
	if hi != 1 {
		t.Errorf("skill 1, no slips: accuracy %.2f on problems the procedure reads right, want 1", hi)
	}
	if lo >= 0.5 {
		t.Errorf("skill 0: accuracy %.2f, want well below skill 1's", lo)
	}
}

func TestSimWritesSteps(t *testing.T) {
	lib, _ := prompts.Bundled()
	p := sim.DefaultParams()
	p.Skill, p.Slip = 1, 0
	out := ask(t, lib, "qa/cot", promptData{Input: "Sara had 20 dollars and spent 7 dollars. How many dollars are left?"}, p, 1, 1)[0]
	if out != "20 - 7 = 13\nAnswer: 13" {
		t.Errorf("cot output %q", out)
	}
	out = ask(t, lib, "qa/io", promptData{Input: "Sara had 20 dollars and spent 7 dollars. How many dollars are left?"}, p, 1, 1)[0]
	if out != "Answer: 13" {
		t.Errorf("io output %q", out)
	}
}

func TestSimLearnsFromCritiques(t *testing.T) {
	lib, _ := prompts.Bundled()
	p := sim.DefaultParams()
	q := "Where did Anna Berg open her shop?"
	ctx := "Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902."
	refl := ask(t, lib, "qa/reflect", struct{ Input, Context, Actor, Trajectory, Answer string }{q, ctx, "cot", "Answer: 1902", "1902"}, p, 1, 1)[0]
	if !strings.Contains(refl, sim.NamedFailure) || !strings.Contains(refl, reading.AnsweredMarker+`1902"`) {
		t.Fatalf("reflection %q does not name the failure and quote the answer", refl)
	}
	// A later attempt that shows the reflection avoids the rejected answer.
	type memory struct {
		Input, Context, LastAttempt string
		Reflections                 []string
	}
	p.Skill = 0 // guessing: only the critique keeps it off 1902
	for _, out := range ask(t, lib, "qa/reflexion_cot", memory{Input: q, Context: ctx, Reflections: []string{refl}}, p, 30, 3) {
		if strings.HasSuffix(out, "Answer: 1902") {
			t.Fatalf("an attempt repeats the rejected answer: %q", out)
		}
	}
	// Self-evaluation agrees with its own considered answer.
	p = sim.DefaultParams()
	p.Misjudge = 0
	judge := func(ans string) string {
		return ask(t, lib, "qa/self_eval", struct{ Input, Context, Trajectory, Answer string }{q, ctx, "Answer: " + ans, ans}, p, 1, 1)[0]
	}
	if j := judge("Lindau"); !strings.HasSuffix(j, "Judgement: correct") {
		t.Errorf("self_eval of its own answer: %q", j)
	}
	if j := judge("Berlin"); !strings.HasSuffix(j, "Judgement: incorrect") {
		t.Errorf("self_eval of another answer: %q", j)
	}
}

// TestSimLeavesOtherPromptsAlone checks the qa responder answers only qa
// templates.
func TestSimLeavesOtherPromptsAlone(t *testing.T) {
	lib, _ := prompts.Bundled()
	for _, name := range []string{"hotpotqa/cot", "hotpotqa/reflect", "game24/cot", "hotpotqa/ref_cot_agent"} {
		text, ok := lib.Text(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		_, answered := Responder{}.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text + "\nQuestion: What is 2 plus 3?"}}}, nil, sim.DefaultParams())
		if answered {
			t.Errorf("the qa responder answered %s", name)
		}
	}
}

var _ tasks.Task = (*qa.Task)(nil)

func FuzzSimRespond(f *testing.F) {
	lib, _ := prompts.Bundled()
	var names []string
	for _, n := range lib.Names() {
		if strings.HasPrefix(n, "qa/") || strings.HasPrefix(n, "gsm8k/") {
			names = append(names, n)
		}
	}
	f.Add(uint8(0), "Tom has 3 apples and buys 5 more. How many?", "Observation: 12 and 1e999 -0")
	f.Add(uint8(3), "Which?\nA. x\nB. y", "Reasoning so far:\n3 + = 5\nNext line:")
	f.Add(uint8(7), "Q: 1/0 ١٢ twice half a dozen 50% of 3 times", "Choice 1:\nAnswer: 5\nChoice 2:\n")
	f.Fuzz(func(t *testing.T, which uint8, question, tail string) {
		text, _ := lib.Text(names[int(which)%len(names)])
		prompt := strings.ReplaceAll(text, "{{.Input}}", question) + "\n" + tail
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: prompt}, {Role: "assistant", Content: tail}, {Role: "user", Content: "Observation: " + tail}},
			Tools: []llm.ToolSpec{{Name: "search", Description: "(the pages are: " + tail + ")"}}}
		params := sim.DefaultParams()
		for seed := range uint64(3) {
			for _, q := range []sim.Prompt{p, {Messages: p.Messages[:1]}} {
				c1, ok1 := Responder{}.Respond(q, rand.New(rand.NewPCG(seed, 1)), params)
				c2, ok2 := Responder{}.Respond(q, rand.New(rand.NewPCG(seed, 1)), params)
				simtest.CheckChoice(t, c1, ok1, c2, ok2)
			}
		}
	})
}
