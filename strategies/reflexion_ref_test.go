package strategies

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/tokens"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// refFixture is a prompt pack in the reference's shapes with short texts
// of ours, so the expected prompts below can be written out by hand from
// agents.py: each agent template is the reference's field order with its
// separators.
var refFixture = map[string]string{
	"ref_cot_agent":                          "I\n{{.Examples}}\n(END)\n\n{{.Reflections}}\n\nCtx: {{.Context}}\nQuestion: {{.Question}}{{.Scratchpad}}",
	"ref_cot_reflect":                        "RI\n{{.Examples}}\n(END)\n\nPrevious trial:\nCtx: {{.Context}}\nQuestion: {{.Question}}{{.Scratchpad}}\n\nReflection:",
	"ref_cot_examples":                       "EX-COT",
	"ref_cot_reflect_examples":               "EX-COT-REFL",
	"ref_cot_simple_agent":                   "SI\n{{.Examples}}\n(END)\n{{.Context}}\n{{.Reflections}}\n\nQuestion: {{.Question}}{{.Scratchpad}}",
	"ref_cot_simple_reflect":                 "SRI\n{{.Examples}}\n(END)\n{{.Context}}\nPrevious trial:\nQuestion: {{.Question}}{{.Scratchpad}}\n\nReflection:",
	"ref_cot_simple_examples":                "EX-S",
	"ref_cot_simple_reflect_examples":        "EX-S-REFL",
	"ref_react_agent":                        "RA\n{{.Examples}}\n(END)\nQuestion: {{.Question}}{{.Scratchpad}}",
	"ref_react_reflect_agent":                "RRA\n{{.Examples}}\n(END)\n\n{{.Reflections}}\n\nQuestion: {{.Question}}{{.Scratchpad}}",
	"ref_react_reflect":                      "RR\n{{.Examples}}\n\nPrevious trial:\nQuestion: {{.Question}}{{.Scratchpad}}\n\nReflection:",
	"ref_react_examples":                     "EX-RE",
	"ref_react_reflect_examples":             "EX-RE-REFL",
	"ref_reflection_header":                  "HR\n",
	"ref_reflection_after_last_trial_header": "HA\n",
	"ref_last_trial_header":                  "HL\n",
	"ref_correct":                            "Answer is CORRECT",
	"ref_incorrect":                          "Answer is INCORRECT",
	"ref_react_invalid":                      "INVALID",
	"ref_truncated":                          "[cut]",
}

func refEnv(t *testing.T, s *scripted) Env {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hotpotqa"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range refFixture {
		if err := os.WriteFile(filepath.Join(dir, "hotpotqa", name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := prompts.WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Env{Sampler: s, Task: hotpotqa.NewTask(), Prompts: lib, Seed: 3, Trace: &trialLog{}}
}

func goldOf(t *testing.T, inst tasks.Instance) string {
	t.Helper()
	q, ok := inst.Data.(hotpotqa.Question)
	if !ok {
		t.Fatal("no question data")
	}
	return q.Answer
}

type refCall struct {
	prompt string
	stop   []string
	max    int
}

func checkRefCalls(t *testing.T, s *scripted, want []refCall) {
	t.Helper()
	if len(s.reqs) != len(want) {
		for i, r := range s.reqs {
			t.Logf("call %d: %q", i+1, r.Messages[0].Content)
		}
		t.Fatalf("%d calls, want %d", len(s.reqs), len(want))
	}
	for i, r := range s.reqs {
		if len(r.Messages) != 1 || r.Messages[0].Role != "user" {
			t.Errorf("call %d: %d messages, want one user turn", i+1, len(r.Messages))
			continue
		}
		if got := r.Messages[0].Content; got != want[i].prompt {
			t.Errorf("call %d prompt:\n got %q\nwant %q", i+1, got, want[i].prompt)
		}
		if !slices.Equal(r.Stop, want[i].stop) || r.MaxTokens != want[i].max || r.TemperatureOr(-1) != 0 {
			t.Errorf("call %d: stop %q max_tokens %d temperature %v, want %q %d 0", i+1, r.Stop, r.MaxTokens, r.TemperatureOr(-1), want[i].stop, want[i].max)
		}
	}
}

// TestRefCoTTurns: the reference CoT agent with context and reflexion, a
// wrong first trial, a reflection, a right second trial; the prompts are
// CoTAgent's, turn by turn.
func TestRefCoTTurns(t *testing.T) {
	t.Parallel()
	inst := hotpotRow(t, 0)
	gold := goldOf(t, inst)
	s := &scripted{outputs: []string{" first thought \n", "Finish[Nowhere]", "\n I misread the context.\n", "second thought", "Finish[" + gold + "]"}}
	env := refEnv(t, s)
	res, err := newStrategy(t, "reflexion_ref", map[string]any{"trials": 4}).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	// The reference's notebook: for each supporting fact, its article's
	// sentences joined with "", the paragraphs joined with "\n\n".
	var paras []string
	row := inst.Data.(hotpotqa.Question)
	for _, sf := range row.SupportingFacts {
		for _, p := range row.Context {
			if p.Title == sf.Title {
				paras = append(paras, strings.Join(p.Sentences, ""))
				break
			}
		}
	}
	q, c := inst.Input, strings.Join(paras, "\n\n")
	agent := func(refl, sp string) string {
		return "I\nEX-COT\n(END)\n\n" + refl + "\n\nCtx: " + c + "\nQuestion: " + q + sp
	}
	sp1 := "\nThought: first thought\nAction: Finish[Nowhere]\nObservation: Answer is INCORRECT"
	refl := "HR\nReflections:\n- I misread the context."
	nl := []string{"\n"}
	checkRefCalls(t, s, []refCall{
		{agent("", "\nThought:"), nl, 250},
		{agent("", "\nThought: first thought\nAction:"), nl, 250},
		{"RI\nEX-COT-REFL\n(END)\n\nPrevious trial:\nCtx: " + c + "\nQuestion: " + q + sp1 + "\n\nReflection:", nl, 250},
		{agent(refl, "\nThought:"), nl, 250},
		{agent(refl, "\nThought: second thought\nAction:"), nl, 250},
	})
	d := res.Detail.(RefDetail)
	if len(d.Trials) != 2 || d.Trials[0].Scratchpad != sp1 || d.Trials[0].Correct || !d.Trials[1].Correct ||
		d.Trials[1].Scratchpad != "\nThought: second thought\nAction: Finish["+gold+"]\nObservation: Answer is CORRECT" {
		t.Errorf("trials = %+v", d.Trials)
	}
	if res.Accuracy != 1 || res.Metrics["after_trial_1"] != 0 || res.Metrics["after_trial_4"] != 1 || res.Metrics["ran_trial_3"] != 0 {
		t.Errorf("accuracy %v metrics %v", res.Accuracy, res.Metrics)
	}
}

// TestRefCoTNoContextLastTrial: CoT without context, last_trial: the
// previous scratchpad under the last-trial header, no reflection call; a
// non-Finish action leaves the observation empty and the old answer
// standing.
func TestRefCoTNoContextLastTrial(t *testing.T) {
	t.Parallel()
	inst := hotpotRow(t, 1)
	s := &scripted{outputs: []string{"a", "Finish[Nowhere]", "b", "Search[x]", "c", "Finish[Nowhere]"}}
	env := refEnv(t, s)
	res, err := newStrategy(t, "reflexion_ref", map[string]any{"trials": 3, "context": "none", "reflection": ReflectLastAttempt}).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	q := inst.Input
	agent := func(refl, sp string) string { return "SI\nEX-S\n(END)\n\n" + refl + "\n\nQuestion: " + q + sp }
	sp1 := "\nThought: a\nAction: Finish[Nowhere]\nObservation: Answer is INCORRECT"
	sp2 := "\nThought: b\nAction: Search[x]\nObservation: "
	last := func(sp string) string {
		return "HL\nQuestion: " + q + "\n" + strings.TrimSpace(sp) + "\n(END PREVIOUS TRIAL)\n"
	}
	nl := []string{"\n"}
	checkRefCalls(t, s, []refCall{
		{agent("", "\nThought:"), nl, 250},
		{agent("", "\nThought: a\nAction:"), nl, 250},
		{agent(last(sp1), "\nThought:"), nl, 250},
		{agent(last(sp1), "\nThought: b\nAction:"), nl, 250},
		{agent(last(sp2), "\nThought:"), nl, 250},
		{agent(last(sp2), "\nThought: c\nAction:"), nl, 250},
	})
	d := res.Detail.(RefDetail)
	if d.Trials[1].Answer != "Nowhere" || d.Trials[1].Finished || d.Trials[1].Scratchpad != sp2 {
		t.Errorf("trial 2 = %+v", d.Trials[1])
	}
}

// TestRefReflectionFormats: last_attempt_and_reflexion joins the
// last-trial text and the newest reflection with a newline for CoT and
// without one for ReAct, as the two agents' reflect() do; reflexion keeps
// every reflection.
func TestRefReflectionFormats(t *testing.T) {
	t.Parallel()
	if got := RefFormatReflections("H\n", nil); got != "" {
		t.Errorf("no reflections = %q", got)
	}
	if got, want := RefFormatReflections("H\n", []string{" one \n", "two"}), "H\nReflections:\n- one\n- two"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if got, want := RefFormatLastAttempt("L\n", "Q?", "\nThought: x\n", 1600, "[cut]", p50k(t)), "L\nQuestion: Q?\nThought: x\n(END PREVIOUS TRIAL)\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	inst := hotpotRow(t, 0)
	for _, tc := range []struct {
		agent string
		sep   string
	}{{RefAgentCoT, "\n"}, {RefAgentReAct, ""}} {
		s := &scripted{outputs: []string{"t", "Finish[Nowhere]", "R1", "t", "Finish[Nowhere]", "R2", "t", "Finish[Nowhere]"}}
		env := refEnv(t, s)
		_, err := newStrategy(t, "reflexion_ref", map[string]any{"agent": tc.agent, "trials": 3, "reflection": ReflectLastAttemptAndReflexion}).Solve(context.Background(), env, inst)
		if err != nil {
			t.Fatal(err)
		}
		var sp string
		if tc.agent == RefAgentCoT {
			sp = "\nThought: t\nAction: Finish[Nowhere]\nObservation: Answer is INCORRECT"
		} else {
			sp = "\nThought 1: t\nAction 1: Finish[Nowhere]\nObservation 1: Answer is INCORRECT"
		}
		// The third trial's prompt carries only the second reflection.
		want := "HL\nQuestion: " + inst.Input + "\n" + strings.TrimSpace(sp) + "\n(END PREVIOUS TRIAL)\n" + tc.sep + "HA\nReflections:\n- R2"
		last := s.reqs[len(s.reqs)-1].Messages[0].Content
		if !strings.Contains(last, "\n\n"+want+"\n\n") || strings.Contains(last, "R1") {
			t.Errorf("%s: last prompt %q lacks %q", tc.agent, last, want)
		}
	}
}

// TestRefTruncate: the longest observation goes first; among equals the
// last one in the list is popped, and it is looked up by text, so the first
// identical line is the one replaced.
func TestRefTruncate(t *testing.T) {
	t.Parallel()
	long := "Observation 1: " + strings.Repeat("word ", 40)
	mid := "Observation 2: " + strings.Repeat("abc ", 10)
	sp := "Thought 1: x\n" + long + "\nThought 2: y\n" + mid + "\n" + long
	count := p50k(t)
	if got := RefTruncateScratchpad(sp, 10000, "[cut]", count); got != sp {
		t.Errorf("under budget changed: %q", got)
	}
	// The first cut must take a long line.
	if n, m := count(long), count(mid); n <= m {
		t.Fatalf("long line %d tokens, mid %d", n, m)
	}
	budget := count(sp) - 1
	want := "Thought 1: x\nObservation 1: [cut]\nThought 2: y\n" + mid + "\n" + long
	if got := RefTruncateScratchpad(sp, budget, "[cut]", count); got != want {
		t.Errorf("one cut:\n got %q\nwant %q", got, want)
	}
	all := "Thought 1: x\nObservation 1: [cut]\nThought 2: y\nObservation 2: [cut]\nObservation 1: [cut]"
	if got := RefTruncateScratchpad(sp, 1, "[cut]", count); got != all {
		t.Errorf("all cut:\n got %q\nwant %q", got, all)
	}
}

// TestRefReActTurns: the ReAct reference agent's numbered
// Thought/Action/Observation turns over the local docstore, an invalid
// action, the step limit, then a reflection on the truncated scratchpad
// (no stop) and the next trial under the reflection header.
func TestRefReActTurns(t *testing.T) {
	t.Parallel()
	inst := hotpotRow(t, 0)
	q := inst.Data.(hotpotqa.Question)
	title := q.Context[0].Title
	s := &scripted{outputs: []string{"look", "Search[" + title + "]", "hmm", "Dance[x]", "R", "go", "Finish[Nowhere]"}}
	env := refEnv(t, s)
	_, err := newStrategy(t, "reflexion_ref", map[string]any{"agent": RefAgentReAct, "trials": 2, "max_steps": 2}).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := hotpotqa.NewTask().Tools(inst)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tools[0].Call(context.Background(), []byte(`{"entity":`+jsonQuote(title)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	obs := RefFormatStep(raw.Observation)
	agent := func(refl, sp string) string {
		return "RRA\nEX-RE\n(END)\n\n" + refl + "\n\nQuestion: " + inst.Input + sp
	}
	sp1 := "\nThought 1: look\nAction 1: Search[" + title + "]\nObservation 1: " + obs + "\nThought 2: hmm\nAction 2: Dance[x]\nObservation 2: INVALID"
	nl := []string{"\n"}
	checkRefCalls(t, s, []refCall{
		{agent("", "\nThought 1:"), nl, 100},
		{agent("", "\nThought 1: look\nAction 1:"), nl, 100},
		{agent("", "\nThought 1: look\nAction 1: Search["+title+"]\nObservation 1: "+obs+"\nThought 2:"), nl, 100},
		{agent("", "\nThought 1: look\nAction 1: Search["+title+"]\nObservation 1: "+obs+"\nThought 2: hmm\nAction 2:"), nl, 100},
		{"RR\nEX-RE-REFL\n\nPrevious trial:\nQuestion: " + inst.Input + RefTruncateScratchpad(sp1, 1600, "[cut]", p50k(t)) + "\n\nReflection:", nil, 250},
		{agent("HR\nReflections:\n- R", "\nThought 1:"), nl, 100},
		{agent("HR\nReflections:\n- R", "\nThought 1: go\nAction 1:"), nl, 100},
	})
}

func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// TestRefBaseTemplates: reflection=none uses the plain agent prompts, as
// the notebooks do for the base runs, and repeats the same prompt.
func TestRefBaseTemplates(t *testing.T) { // sequential: it adds to refFixture, which the parallel tests read
	refFixture["ref_cot_base_agent"] = "B\n{{.Examples}}\n{{.Reflections}}\nCtx: {{.Context}} \nQuestion: {{.Question}}{{.Scratchpad}}"
	refFixture["ref_cot_simple_base_agent"] = "SB\n{{.Examples}}\n{{.Reflections}}\n{{.Context}}\nQuestion: {{.Question}}{{.Scratchpad}}"
	defer delete(refFixture, "ref_cot_base_agent")
	defer delete(refFixture, "ref_cot_simple_base_agent")
	inst := hotpotRow(t, 0)
	s := &scripted{outputs: []string{"t", "Finish[Nowhere]"}}
	env := refEnv(t, s)
	if _, err := newStrategy(t, "reflexion_ref", map[string]any{"trials": 2, "context": "none", "reflection": ReflectNone}).Solve(context.Background(), env, inst); err != nil {
		t.Fatal(err)
	}
	want := "SB\nEX-S\n\n\nQuestion: " + inst.Input + "\nThought:"
	if len(s.reqs) != 4 || s.reqs[0].Messages[0].Content != want || s.reqs[2].Messages[0].Content != want {
		t.Errorf("%d calls, first %q, want %q twice", len(s.reqs), s.reqs[0].Messages[0].Content, want)
	}
}

// failAfter fails every call after the first n.
type failAfter struct {
	scripted
	n int
}

func (f *failAfter) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	if len(f.reqs) >= f.n {
		return llm.Response{}, errors.New("endpoint down")
	}
	return f.scripted.Sample(ctx, req)
}

// TestRefResume: a run interrupted in trial 2 resumes at trial 2 from the
// checkpoint (answer, reflections and scratchpad of trial 1 kept) and sends
// the prompts an uninterrupted run sends.
func TestRefResume(t *testing.T) {
	t.Parallel()
	inst := hotpotRow(t, 0)
	outs := []string{"a", "Finish[Nowhere]", "R1", "b", "Finish[Elsewhere]", "R2", "c", "Finish[Nowhere]"}
	set := map[string]any{"trials": 3}
	whole := &scripted{outputs: outs}
	if _, err := newStrategy(t, "reflexion_ref", set).Solve(context.Background(), refEnv(t, whole), inst); err != nil {
		t.Fatal(err)
	}
	cp := &fakeCheckpoint{}
	broken := &failAfter{scripted: scripted{outputs: outs}, n: 4}
	env := refEnv(t, &broken.scripted)
	env.Sampler, env.Checkpoint = broken, cp
	if _, err := newStrategy(t, "reflexion_ref", set).Solve(context.Background(), env, inst); err == nil {
		t.Fatal("no error from the broken endpoint")
	}
	if cp.next != 1 {
		t.Fatalf("checkpoint next = %d, want 1", cp.next)
	}
	rest := &scripted{outputs: outs[2:]}
	env = refEnv(t, rest)
	env.Checkpoint = cp
	res, err := newStrategy(t, "reflexion_ref", set).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest.reqs) != len(whole.reqs)-2 {
		t.Fatalf("resumed with %d calls, want %d", len(rest.reqs), len(whole.reqs)-2)
	}
	for i, r := range rest.reqs {
		if r.Messages[0].Content != whole.reqs[i+2].Messages[0].Content {
			t.Errorf("resumed call %d differs:\n%q\n%q", i, r.Messages[0].Content, whole.reqs[i+2].Messages[0].Content)
		}
	}
	if d := res.Detail.(RefDetail); len(d.Trials) != 3 || d.Trials[2].Answer != "Nowhere" {
		t.Errorf("trials %+v", d.Trials)
	}
}

// p50k counts tokens as the reference does.
func p50k(t *testing.T) func(string) int {
	t.Helper()
	c, err := tokens.Encoding("p50k_base")
	if err != nil {
		t.Fatal(err)
	}
	return c.Text
}

// TestRefReActHaltsOnPromptTokens: a ReAct trial halts before a step whose
// prompt is longer than prompt_tokens, counted in p50k_base exactly: a
// limit equal to the first prompt's count lets it run, one less halts it.
func TestRefReActHaltsOnPromptTokens(t *testing.T) {
	t.Parallel()
	inst := hotpotRow(t, 0)
	probe := &scripted{outputs: []string{"go", "Finish[x]"}}
	if _, err := newStrategy(t, "reflexion_ref", map[string]any{"agent": RefAgentReAct, "trials": 1, "reflection": ReflectNone}).
		Solve(context.Background(), refEnv(t, probe), inst); err != nil {
		t.Fatal(err)
	}
	// The halt is checked on the prompt before "Thought 1:" is appended.
	first := strings.TrimSuffix(probe.reqs[0].Messages[0].Content, "\nThought 1:")
	n := p50k(t)(first)
	for _, tc := range []struct {
		limit int
		calls int
	}{{n, 2}, {n - 1, 0}} {
		s := &scripted{outputs: []string{"go", "Finish[x]"}}
		if _, err := newStrategy(t, "reflexion_ref", map[string]any{"agent": RefAgentReAct, "trials": 1, "reflection": ReflectNone,
			"prompt_tokens": tc.limit}).Solve(context.Background(), refEnv(t, s), inst); err != nil {
			t.Fatal(err)
		}
		if len(s.reqs) != tc.calls {
			t.Errorf("prompt_tokens=%d (first prompt %d tokens): %d calls, want %d", tc.limit, n, len(s.reqs), tc.calls)
		}
	}
}
