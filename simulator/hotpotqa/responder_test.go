package hotpotqa

import (
	"context"
	"encoding/json"
	"github.com/reasonbench/reasonbench/llm/sim/simtest"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

func simModel(t *testing.T, p sim.Params) *sim.Model {
	t.Helper()
	m, err := sim.New(p, Responder{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bundled is the template library, parsed once for the package's tests.
var bundled = sync.OnceValues(prompts.Bundled)

func render(t *testing.T, name string, data any) string {
	t.Helper()
	lib, err := bundled()
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
		"react_xml":   {markerReAct, sim.MarkerReActXML, "<search><entity>", "<lookup><keyword>", "<finish><answer>"},
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
		if strings.Contains(strings.ToLower(text), reading.MarkerLastStep) {
			t.Errorf("hotpotqa/%s says %q, which the simulator reads as the step limit", name, reading.MarkerLastStep)
		}
		if name != "cot" && name != "io" && strings.Contains(text, markerQA) {
			t.Errorf("hotpotqa/%s carries the IO/CoT marker", name)
		}
	}
	for _, name := range lib.Names() {
		if text, _ := lib.Text(name); strings.Contains(text, sim.NamedFailure) || strings.Contains(text, reading.AnsweredMarker) {
			t.Errorf("%s contains what only simulated critiques may say", name)
		}
	}
	// The few-shot examples of the CoT prompt end in Answer lines, and the
	// context appears only when given.
	q, _ := hotpotqa.Questions()
	ctx := hotpotqa.FormatParagraphs(q[0].Gold())
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

// contextOf renders a question's paragraphs for a context mode.
func contextOf(q hotpotqa.Question, mode string) string {
	switch mode {
	case hotpotqa.ContextGold:
		return hotpotqa.FormatParagraphs(q.Gold())
	case hotpotqa.ContextDistractor:
		return hotpotqa.FormatParagraphs(q.Context)
	}
	return ""
}

// considered is the answer the simulator believes for a prompt: what it
// gives at skill 1 without slips.
func considered(t *testing.T, prompt string) string {
	t.Helper()
	r, ok := readPrompt(prompt)
	if !ok {
		t.Fatalf("no question in\n%s", prompt)
	}
	return reading.Consider(r).Answers[0]
}

// accuracy samples n answers per question and returns the mean EM.
func accuracy(t *testing.T, m *sim.Model, qs []hotpotqa.Question, n int, prompt func(hotpotqa.Question) string) float64 {
	t.Helper()
	task := hotpotqa.NewTask()
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

func cotPrompt(t *testing.T, mode string) func(hotpotqa.Question) string {
	return func(q hotpotqa.Question) string { return render(t, "cot", qaData{q.Question, contextOf(q, mode)}) }
}

// TestSimReadingCeiling measures how often the simulator's considered
// answer (every choice made well, no slip) is the gold one: the ceiling of
// its accuracy on the 100 questions, whatever --sim-skill, for CoT with
// each context and for ReAct. The simulator never sees the gold; only
// this test compares.
func TestSimReadingCeiling(t *testing.T) {
	qs, err := hotpotqa.Questions()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{hotpotqa.ContextGold, hotpotqa.ContextDistractor, hotpotqa.ContextNone} {
		right := 0
		for _, q := range qs {
			if hotpotqa.ExactMatch(considered(t, cotPrompt(t, mode)(q)), q.Answer) {
				right++
			}
		}
		t.Logf("cot, context=%s: the considered answer is right on %d of %d questions", mode, right, len(qs))
		if right == 0 || right == len(qs) {
			t.Errorf("context=%s: ceiling %d of %d: the reading reads nothing, or something it must not", mode, right, len(qs))
		}
	}
	perfect := simModel(t, sim.Params{Skill: 1})
	right := 0
	for _, q := range qs {
		_, out := play(t, perfect, q, "text", 7)
		if hotpotqa.NewTask().Score(tasks.Instance{Gold: q.Answer}, out).Correct {
			right++
		}
	}
	t.Logf("react (text, 7 steps) at skill 1, no slips: right on %d of %d questions", right, len(qs))
	if right == 0 || right == len(qs) {
		t.Errorf("react ceiling %d of %d", right, len(qs))
	}
}

func TestSimSkillScalesAccuracy(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	at := func(skill float64, mode string) float64 {
		return accuracy(t, simModel(t, sim.Params{Skill: skill, Slip: 0.1, Focus: 2}), qs, 10, cotPrompt(t, mode))
	}
	hi, mid, lo := at(1, hotpotqa.ContextGold), at(0.5, hotpotqa.ContextGold), at(0, hotpotqa.ContextGold)
	none := at(1, hotpotqa.ContextNone)
	t.Logf("EM with gold context at skill 1, 0.5, 0: %.3f %.3f %.3f; closed book at skill 1: %.3f", hi, mid, lo, none)
	if !(hi > mid && mid > lo) {
		t.Errorf("accuracy does not grow with skill: %.3f %.3f %.3f", hi, mid, lo)
	}
	if !(hi > none) {
		t.Errorf("reading the gold paragraphs (%.3f) is no better than closed book (%.3f)", hi, none)
	}
}

// TestSimDoesNotSayWhatItWasNotShown: with the gold answer's text taken
// out of every paragraph shown, or with no paragraphs, no sample gives the
// gold answer (questions whose answer the question or the template says
// anyway, such as yes or no, are left out).
func TestSimDoesNotSayWhatItWasNotShown(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	m := simModel(t, sim.DefaultParams())
	checked := 0
	for _, q := range qs {
		redacted := strings.NewReplacer(q.Answer, "[gap]").Replace(hotpotqa.FormatParagraphs(q.Gold()))
		for _, prompt := range []string{render(t, "cot", qaData{q.Question, redacted}), render(t, "cot", qaData{q.Question, ""})} {
			if strings.Contains(" "+hotpotqa.Normalize(prompt)+" ", " "+hotpotqa.Normalize(q.Answer)+" ") {
				continue
			}
			checked++
			resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}, N: 20, Temperature: llm.Temp(1), Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range resp.Texts() {
				if sc := hotpotqa.NewTask().Score(tasks.Instance{Gold: q.Answer}, out); sc.Correct {
					t.Fatalf("%s: answered the gold %q it was not shown:\n%s", q.ID, q.Answer, out)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d prompts checked", checked)
	}
}

// redactedQuestions replaces the bundled data with copies whose answers
// and supporting facts are false, for the rest of the test.
func redactedQuestions(t *testing.T) {
	qs, err := hotpotqa.Questions()
	if err != nil {
		t.Fatal(err)
	}
	for i := range qs {
		qs[i].Answer = "Redacted Answer"
		qs[i].SupportingFacts = []hotpotqa.SupportingFact{{Title: qs[i].Context[len(qs[i].Context)-1].Title, Sentence: 0}}
	}
	t.Cleanup(hotpotqa.SetQuestionsForTesting(qs))
}

// TestSimReadsOnlyThePrompt runs every prompt shape the responder answers,
// rendered from the real questions, once with the bundled data as it is
// and once with its answers and supporting facts replaced: the answers are
// identical, so nothing the responder says comes from them.
func TestSimReadsOnlyThePrompt(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	qs = qs[:12]
	m := simModel(t, sim.DefaultParams())
	learn := func(q hotpotqa.Question) learnData {
		return learnData{Input: q.Question, Context: contextOf(q, hotpotqa.ContextGold), Actor: "cot", Trajectory: "Thought: t\nAnswer: Paris",
			Answer: "Paris", Output: "Answer: Paris", Reflections: []string{reading.Reflection("Paris")},
			History: []attemptData{{1, "Answer: Paris", "Paris", "Not sure."}}}
	}
	shapes := map[string]func(hotpotqa.Question) string{
		"io": func(q hotpotqa.Question) string {
			return render(t, "io", qaData{q.Question, contextOf(q, hotpotqa.ContextGold)})
		},
		"cot gold":       cotPrompt(t, hotpotqa.ContextGold),
		"cot distractor": cotPrompt(t, hotpotqa.ContextDistractor),
		"cot none":       cotPrompt(t, hotpotqa.ContextNone),
		"reflexion_cot":  func(q hotpotqa.Question) string { return render(t, "reflexion_cot", learn(q)) },
		"reflect":        func(q hotpotqa.Question) string { return render(t, "reflect", learn(q)) },
		"self_eval":      func(q hotpotqa.Question) string { return render(t, "self_eval", learn(q)) },
		"feedback":       func(q hotpotqa.Question) string { return render(t, "feedback", learn(q)) },
		"refine":         func(q hotpotqa.Question) string { return render(t, "refine", learn(q)) },
		"tot_sample": func(q hotpotqa.Question) string {
			return render(t, "tot_sample", struct{ Input, Context, State string }{q.Question, contextOf(q, hotpotqa.ContextDistractor), ""})
		},
		"tot_vote": func(q hotpotqa.Question) string {
			type voteChoice struct {
				N    int
				Text string
			}
			return render(t, "tot_vote", struct {
				Input, Context string
				Choices        []voteChoice
			}{Input: q.Question, Context: contextOf(q, hotpotqa.ContextDistractor),
				Choices: []voteChoice{{1, "From A: a"}, {2, "From " + q.Context[0].Title + ": " + q.Context[0].Sentences[0]}}})
		},
		"lats_value": func(q hotpotqa.Question) string {
			return render(t, "lats_value", struct {
				Input, Trajectory string
				Reflections       []string
			}{q.Question, "Thought 1: t\nAction 1: Search[" + q.Context[0].Title + "]\nObservation 1: " + q.Context[0].Text(), nil})
		},
		"ref cot": func(q hotpotqa.Question) string {
			return "Solve it.\nRelevant Context: " + q.SupportingParagraphs() + "\nQuestion: " + q.Question + "\nThought:"
		},
		"ref react": func(q hotpotqa.Question) string {
			return "Solve it.\nQuestion: " + q.Question + "\nThought 1: I will search " + q.Context[0].Title + ".\nAction 1: Search[" +
				q.Context[0].Title + "]\nObservation 1: " + q.Context[0].Text() + "\nThought 2:"
		},
	}
	answers := func() map[string][]string {
		out := map[string][]string{}
		for name, prompt := range shapes {
			for _, q := range qs {
				resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt(q)}},
					N: 4, Temperature: llm.Temp(0.7), Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				if resp.Choices[0].Content == sim.Fallback {
					t.Fatalf("%s not answered:\n%s", name, prompt(q))
				}
				out[name] = append(out[name], resp.Texts()...)
			}
		}
		for _, protocol := range []string{"text", "json", "tools"} {
			for _, q := range qs {
				actions, final := play(t, m, q, protocol, 7)
				out["react "+protocol] = append(out["react "+protocol], append(actions, final)...)
			}
		}
		return out
	}
	real := answers()
	redactedQuestions(t)
	if got := answers(); !reflect.DeepEqual(real, got) {
		for name := range real {
			if !reflect.DeepEqual(real[name], got[name]) {
				t.Errorf("%s: the answers change with the bundled answers and supporting facts", name)
			}
		}
	}
}

func TestSimQAFormats(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	q := qs[5]
	m := simModel(t, sim.Params{Skill: 1})
	for name, wantThought := range map[string]bool{"io": false, "cot": true} {
		prompt := render(t, name, qaData{q.Question, hotpotqa.FormatParagraphs(q.Gold())})
		resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		out := resp.Choices[0].Content
		if strings.HasPrefix(out, "Thought: From ") != wantThought || !strings.HasSuffix(out, "\nAnswer: "+considered(t, prompt)) && wantThought ||
			!wantThought && out != "Answer: "+considered(t, prompt) {
			t.Errorf("%s: %q", name, out)
		}
	}
	// A question that is not bundled is answered from what the prompt shows,
	// as `bench serve-sim` answers any prompt.
	prompt := render(t, "cot", qaData{"Which river flows through the town where Anna Berg opened her shop?",
		"Anna Berg: Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902.\nLindau: Lindau is a small town on the river Amper."})
	resp, _ := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}})
	if out := resp.Choices[0].Content; !strings.HasSuffix(out, "\nAnswer: Amper") {
		t.Errorf("two hops over a question of our own: %q", out)
	}
}

func TestSimIsDeterministicPerSeed(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	m := simModel(t, sim.DefaultParams())
	prompt := render(t, "cot", qaData{qs[7].Question, hotpotqa.FormatParagraphs(qs[7].Context)})
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
// the react strategy would, and returns its actions (tool and JSON
// arguments) and its final output.
func play(t *testing.T, m *sim.Model, q hotpotqa.Question, protocol string, maxSteps int) ([]string, string) {
	t.Helper()
	tools, err := hotpotqa.NewTask().Tools(tasks.Instance{Data: q})
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

// searched reads the entity of a search action from play.
func searched(action string) (string, bool) {
	rest, ok := strings.CutPrefix(action, "search ")
	if !ok {
		return "", false
	}
	var args hotpotqa.SearchArgs
	_ = json.Unmarshal([]byte(rest), &args)
	return args.Entity, true
}

// TestSimReActSearchesWhatItRead: at skill 1 the agent first searches the
// first name the question gives, and every later search is a name it read
// in the question or in an observation; it finishes with an answer.
func TestSimReActSearchesWhatItRead(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	perfect := simModel(t, sim.Params{Skill: 1})
	for _, protocol := range []string{"text", "json", "tools"} {
		for _, q := range qs[:15] {
			actions, out := play(t, perfect, q, protocol, 7)
			if !strings.HasPrefix(out, "Answer: ") {
				t.Errorf("%s %s: output %q", protocol, q.ID, out)
			}
			seen := q.Question
			for i, a := range actions {
				entity, ok := searched(a)
				if !ok {
					continue
				}
				if i == 0 && entity != reading.Names(q.Question)[0] {
					t.Errorf("%s %s: first search %q, want the question's first name %q", protocol, q.ID, entity, reading.Names(q.Question)[0])
				}
				if !strings.Contains(hotpotqa.Normalize(seen), hotpotqa.Normalize(entity)) {
					t.Errorf("%s %s: searched %q, which it never read", protocol, q.ID, entity)
				}
				obs, _ := hotpotqa.NewLocalDocstore(q.Context).Search(context.Background(), entity)
				seen += "\n" + obs
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
	qs, _ := hotpotqa.Questions()
	m := simModel(t, sim.Params{Skill: 0.5, Slip: 0.1})
	off := 0
	for _, q := range qs[:30] {
		actions, _ := play(t, m, q, "text", 7)
		for _, a := range actions {
			if entity, ok := searched(a); ok && !reading.ContainsText(reading.Names(q.Question), entity) {
				off++
			}
		}
	}
	if off == 0 {
		t.Error("skill 0.5 only ever searched the question's names")
	}
}

func TestSimThoughts(t *testing.T) {
	task := hotpotqa.NewTask()
	lib, _ := prompts.Bundled()
	insts, _ := task.Instances()
	inst := insts[6]
	q := inst.Data.(hotpotqa.Question)
	ask := func(prompt string, p sim.Params) string {
		c, ok := respondThoughts(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: prompt}}}, rand.New(rand.NewPCG(1, 1)), p)
		if !ok {
			t.Fatalf("not answered:\n%s", prompt)
		}
		return c.Content
	}
	sp, _, _ := task.SamplePrompt(lib, inst, "")
	r, _ := readPrompt(sp)
	b := reading.Consider(r)
	first := ask(sp, sim.Params{Skill: 1})
	if first != b.Lines[0] || !strings.HasPrefix(first, "From ") {
		t.Errorf("first line %q, want its first evidence %q", first, b.Lines[0])
	}
	title, _, _ := strings.Cut(strings.TrimPrefix(first, "From "), ": ")
	if !slices.ContainsFunc(q.Context, func(p hotpotqa.Paragraph) bool { return p.Title == title }) {
		t.Errorf("cites %q, no paragraph of the question", title)
	}
	// After two lines, the answer.
	sp, _, _ = task.SamplePrompt(lib, inst, first+"\nFrom X: y\n")
	if got := ask(sp, sim.Params{Skill: 1}); !strings.HasPrefix(got, "Answer: ") {
		t.Errorf("third line %q", got)
	}
	// A vote prefers the choice citing its evidence.
	vp, _ := task.VotePrompt(lib, inst, []string{"From Nowhere: x\n", first + "\n"})
	if k, ok := task.ParseVote(ask(vp, sim.Params{}), 2); !ok || k != 1 {
		t.Errorf("vote for %q, want choice 2", first)
	}
}

// FuzzSimRespond feeds the responder every HotpotQA template around
// hostile text, as the question, a scratchpad and observations: it must
// answer or decline, never panic.
func FuzzSimRespond(f *testing.F) {
	lib, _ := bundled()
	var names []string
	for _, n := range lib.Names() {
		if strings.HasPrefix(n, "hotpotqa/") {
			names = append(names, n)
		}
	}
	f.Add(uint8(0), "Who is Anna or Bo?", "Observation: Could not find x. Similar: ['a")
	f.Add(uint8(9), "Are A and B both\n", "\nThought 3: I will search .\nAction 3:")
	f.Add(uint8(20), "\"“ (", "Reasoning so far:\nFrom : \nNext line:\nChoice 1:\nAnswer:")
	f.Fuzz(func(t *testing.T, which uint8, question, tail string) {
		text, _ := lib.Text(names[int(which)%len(names)])
		prompt := strings.ReplaceAll(strings.ReplaceAll(text, "{{.Input}}", question), "{{.Question}}", question) + "\nQuestion: " + question + tail
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: prompt}, {Role: "assistant", Content: tail},
			{Role: "user", Content: "Observation: " + tail}}, Tools: []llm.ToolSpec{{Name: "search"}}}
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
