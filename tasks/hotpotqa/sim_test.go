package hotpotqa

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

func simModel(t *testing.T, p sim.Params) *sim.Model {
	t.Helper()
	m, err := sim.New(p, SimResponder{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func render(t *testing.T, name string, data any) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.Render("hotpotqa/"+name, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type qaData struct{ Input, Context string }

type reactData struct {
	Input    string
	MaxSteps int
}

func TestTemplatesCarryTheMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"io":          {markerQA},
		"cot":         {markerQA, markerCoT},
		"react_text":  {markerReAct, markerReActText, "Search[entity]", "Lookup[keyword]", "Finish[answer]"},
		"react_json":  {markerReAct, markerReActJSON},
		"react_tools": {markerReAct, markerReActTools},
	}
	for name, markers := range want {
		text, ok := lib.Text("hotpotqa/" + name)
		if !ok {
			t.Errorf("no template hotpotqa/%s", name)
			continue
		}
		for _, m := range markers {
			if !strings.Contains(text, m) {
				t.Errorf("hotpotqa/%s lacks %q", name, m)
			}
		}
		if strings.Contains(strings.ToLower(text), markerLastStep) {
			t.Errorf("hotpotqa/%s says %q, which the simulator reads as the step limit", name, markerLastStep)
		}
		if name != "cot" && name != "io" && strings.Contains(text, markerQA) {
			t.Errorf("hotpotqa/%s carries the IO/CoT marker", name)
		}
	}
	// The few-shot examples of the CoT prompt end in Answer lines, and the
	// context appears only when given.
	q, _ := Questions()
	ctx := FormatParagraphs(q[0].Gold())
	with := render(t, "cot", qaData{q[0].Question, ctx})
	without := render(t, "cot", qaData{q[0].Question, ""})
	if !strings.Contains(with, "Context:\n"+ctx+"\nQuestion: "+q[0].Question) {
		t.Errorf("cot with context:\n%s", with)
	}
	if strings.Contains(without, "Context:") || !strings.HasSuffix(without, "Question: "+q[0].Question+"\n") {
		t.Errorf("cot without context:\n%s", without)
	}
	if strings.Contains(without, "\n\n\n") || strings.Contains(with, "\n\n\n") {
		t.Error("cot template leaves blank runs")
	}
	if n := strings.Count(without, "\nAnswer: "); n != 4 {
		t.Errorf("cot has %d example answers, want 4", n)
	}
}

// accuracy samples n answers per question and returns the mean EM.
func accuracy(t *testing.T, m *sim.Model, qs []Question, n int, prompt func(Question) string) float64 {
	t.Helper()
	task := NewTask()
	correct, total := 0, 0
	for _, q := range qs {
		resp, err := m.Sample(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: "user", Content: prompt(q)}}, N: n, Temperature: llm.Temp(0.7), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range resp.Choices {
			if c.Content == sim.Fallback {
				t.Fatalf("prompt not recognised:\n%s", prompt(q))
			}
			total++
			if task.Score(tasks.Instance{Gold: q.Answer}, c.Content).Correct {
				correct++
			}
		}
	}
	return float64(correct) / float64(total)
}

func TestSimQADependsOnWhatThePromptShows(t *testing.T) {
	qs, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	p := sim.Params{Skill: 0.6, Slip: 0.1, Misjudge: 0.1}
	m := simModel(t, p)
	cot := func(mode string) func(Question) string {
		return func(q Question) string {
			ctx := ""
			switch mode {
			case "gold":
				ctx = FormatParagraphs(q.Gold())
			case "distractor":
				ctx = FormatParagraphs(q.Context)
			}
			return render(t, "cot", qaData{q.Question, ctx})
		}
	}
	gold := accuracy(t, m, qs, 10, cot("gold"))
	distractor := accuracy(t, m, qs, 10, cot("distractor"))
	none := accuracy(t, m, qs, 10, cot("none"))
	t.Logf("EM: gold %.3f distractor %.3f none %.3f", gold, distractor, none)
	if !(gold > distractor && distractor > none) {
		t.Errorf("want gold > distractor > none, got %.3f %.3f %.3f", gold, distractor, none)
	}
	// Expected about Skill·(1-Slip) = 0.54 with gold context (the
	// difficulty exponent keeps the mean near it) and half without.
	if gold < 0.4 || gold > 0.65 || none > 0.4 {
		t.Errorf("EM gold %.3f, none %.3f out of the expected range", gold, none)
	}
	perfect := simModel(t, sim.Params{Skill: 1})
	if acc := accuracy(t, perfect, qs[:20], 3, cot("gold")); acc != 1 {
		t.Errorf("skill 1, slip 0: EM %.3f, want 1", acc)
	}
	if acc := accuracy(t, simModel(t, sim.Params{}), qs[:20], 3, cot("gold")); acc != 0 {
		t.Errorf("skill 0: EM %.3f, want 0", acc)
	}
}

func TestSimQAFormats(t *testing.T) {
	qs, _ := Questions()
	q := qs[5]
	m := simModel(t, sim.Params{Skill: 1})
	for name, wantThought := range map[string]bool{"io": false, "cot": true} {
		prompt := render(t, name, qaData{q.Question, FormatParagraphs(q.Gold())})
		resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		out := resp.Choices[0].Content
		if strings.HasPrefix(out, "Thought: ") != wantThought || !strings.HasSuffix(out, "Answer: "+q.Answer) {
			t.Errorf("%s: %q", name, out)
		}
	}
	// A question that is not bundled is not answered.
	resp, _ := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user",
		Content: render(t, "cot", qaData{"Who is the king of the moon?", ""})}}})
	if resp.Choices[0].Content != sim.Fallback {
		t.Errorf("unknown question answered: %q", resp.Choices[0].Content)
	}
}

func TestSimWrongAnswersArePlausible(t *testing.T) {
	qs, _ := Questions()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, q := range qs {
		for range 5 {
			w := wrongAnswer(q, rng)
			if w == "" || ExactMatch(w, q.Answer) {
				t.Fatalf("%s: wrong answer %q for gold %q", q.ID, w, q.Answer)
			}
			if m := misread(q, rng); ExactMatch(m, q.Answer) {
				t.Fatalf("%s: misread %q equals gold %q", q.ID, m, q.Answer)
			}
		}
		if _, yn := yesNo(q.Answer); yn && Normalize(misconception(q)) == Normalize(q.Answer) {
			t.Fatalf("%s: misconception is the answer", q.ID)
		}
		if misconception(q) != misconception(q) {
			t.Fatal("misconception is not fixed")
		}
	}
}

func TestSimIsDeterministicPerSeed(t *testing.T) {
	qs, _ := Questions()
	m := simModel(t, sim.DefaultParams())
	prompt := render(t, "cot", qaData{qs[7].Question, FormatParagraphs(qs[7].Context)})
	ask := func(seed int64) []string {
		resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}},
			N: 8, Temperature: llm.Temp(0.7), Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Texts()
	}
	a, b, c := ask(1), ask(1), ask(2)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different answers")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, same eight answers")
	}
}

// play drives the simulated ReAct agent directly against the docstore, as
// the react strategy would, and returns its actions.
func play(t *testing.T, m *sim.Model, q Question, protocol string, maxSteps int) ([]string, string) {
	t.Helper()
	tools, err := NewTask().Tools(tasks.Instance{Data: q})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]tasks.Tool{}
	var specs []llm.ToolSpec
	for _, tool := range tools {
		byName[tool.Name] = tool
		specs = append(specs, llm.ToolSpec{Name: tool.Name, Description: tool.Description, Parameters: tool.Schema()})
	}
	msgs := []llm.Message{{Role: "user", Content: render(t, "react_"+protocol, reactData{q.Question, maxSteps})}}
	var actions []string
	for step := 1; step <= maxSteps; step++ {
		req := llm.Request{Messages: msgs, Seed: 3}
		last := step == maxSteps
		if last {
			msgs = append(msgs, llm.Message{Role: "user", Content: "This is the last step: answer now."})
			req.Messages = msgs
		} else if protocol == "tools" {
			req.Tools = specs
		}
		resp, err := m.Sample(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		c := resp.Choices[0]
		msgs = append(msgs, c.Message())
		var name, args string
		switch {
		case protocol == "tools" && last:
			if len(c.ToolCalls) != 0 || !strings.HasPrefix(c.Content, "Answer: ") || c.Reasoning == "" {
				t.Fatalf("last step with tools withdrawn: %+v", c)
			}
			return actions, c.Content
		case protocol == "tools":
			if len(c.ToolCalls) != 1 || c.ToolCalls[0].ID == "" || c.Reasoning == "" || !json.Valid([]byte(c.ToolCalls[0].Arguments)) {
				t.Fatalf("tool turn: %+v", c)
			}
			name, args = c.ToolCalls[0].Name, c.ToolCalls[0].Arguments
		case protocol == "json":
			var obj struct{ Thought, Action, Input string }
			if err := json.Unmarshal([]byte(c.Content), &obj); err != nil || obj.Thought == "" {
				t.Fatalf("json turn %q: %v", c.Content, err)
			}
			name = obj.Action
			args, _ = jsonArg(name, obj.Input)
		default:
			th, act, ok := strings.Cut(c.Content, "\nAction: ")
			if !ok || !strings.HasPrefix(th, "Thought: ") {
				t.Fatalf("text turn %q", c.Content)
			}
			n, in, _ := strings.Cut(strings.TrimSuffix(act, "]"), "[")
			name = strings.ToLower(n)
			args, _ = jsonArg(name, in)
		}
		actions = append(actions, name+" "+args)
		res, err := byName[name].Call(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		if res.Final {
			return actions, res.Output
		}
		if protocol == "tools" {
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: c.ToolCalls[0].ID, Content: res.Observation})
		} else {
			msgs = append(msgs, llm.Message{Role: "user", Content: "Observation: " + res.Observation})
		}
	}
	t.Fatal("no answer")
	return nil, ""
}

func jsonArg(tool, input string) (string, error) {
	key := map[string]string{"search": "entity", "lookup": "keyword", "finish": "answer"}[tool]
	b, err := json.Marshal(map[string]string{key: input})
	return string(b), err
}

func TestSimReActSearchesTheGoldTitles(t *testing.T) {
	qs, _ := Questions()
	perfect := simModel(t, sim.Params{Skill: 1})
	for _, protocol := range []string{"text", "json", "tools"} {
		for _, q := range qs[:10] {
			actions, out := play(t, perfect, q, protocol, 7)
			gold := goldTitles(q)
			if len(actions) != len(gold)+1 {
				t.Errorf("%s %s: actions %v for gold titles %v", protocol, q.ID, actions, gold)
				continue
			}
			for i, title := range gold {
				want, _ := jsonArg("search", title)
				if actions[i] != "search "+want {
					t.Errorf("%s: action %d = %s, want search %s", protocol, i, actions[i], title)
				}
			}
			if sc := NewTask().Score(tasks.Instance{Gold: q.Answer}, out); !sc.Correct {
				t.Errorf("%s %s: skill 1 answered %q, gold %q", protocol, q.ID, out, q.Answer)
			}
		}
	}
	// On the last step it answers whatever it found.
	for _, protocol := range []string{"text", "json", "tools"} {
		actions, out := play(t, perfect, qs[0], protocol, 1)
		if len(actions) > 1 || !strings.HasPrefix(out, "Answer: ") {
			t.Errorf("%s, one step: %v %q", protocol, actions, out)
		}
	}
}

func TestSimReActWithNoise(t *testing.T) {
	qs, _ := Questions()
	m := simModel(t, sim.Params{Skill: 0.5, Slip: 0.1})
	missed := 0
	for _, q := range qs[:30] {
		actions, _ := play(t, m, q, "text", 7)
		for _, a := range actions {
			if strings.HasPrefix(a, "search") {
				var args SearchArgs
				_ = json.Unmarshal([]byte(strings.TrimPrefix(a, "search ")), &args)
				if !isGold(q, args.Entity) {
					missed++
				}
			}
		}
	}
	if missed == 0 {
		t.Error("skill 0.5 never searched a distractor or mistyped")
	}
}
