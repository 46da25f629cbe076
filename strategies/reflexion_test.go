package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

const (
	rightAnswer = "Answer: 4 * 5 + 10 - 6 = 24"     // puzzle 4 5 6 10
	wrongAnswer = "Answer: (10 - 6) * (5 + 4) = 24" // value 36
)

// attempt is a wrong actor output that says which attempt it is.
func attempt(i int) string { return fmt.Sprintf("Steps:\nattempt %d\n%s", i, wrongAnswer) }

// learner answers by purpose: the actor's outputs in turn, "reflection N"
// for the Nth reflection, scripted judgements and feedback in turn. It
// records every request; failAt > 0 makes the failAt-th actor call fail.
type learner struct {
	mu       sync.Mutex
	actor    []string
	judge    []string
	feedback []string
	failAt   int
	reqs     []llm.Request
	n        map[string]int
}

var errStop = errors.New("stop here")

func (l *learner) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	next := func(purpose string, from []string) (string, error) {
		i := l.n[purpose]
		l.n[purpose]++
		if i >= len(from) {
			return from[len(from)-1], nil
		}
		return from[i], nil
	}
	var out string
	var err error
	switch req.Purpose {
	case "cot", "generate", "refine":
		if l.failAt > 0 && l.n["actor"]+1 == l.failAt {
			return llm.Response{}, errStop
		}
		out, err = next("actor", l.actor)
	case "reflect":
		l.n["reflect"]++
		out = fmt.Sprintf("reflection %d", l.n["reflect"])
	case "self_eval":
		out, err = next("self_eval", l.judge)
	case "feedback":
		out, err = next("feedback", l.feedback)
	default:
		return llm.Response{}, fmt.Errorf("unexpected purpose %q", req.Purpose)
	}
	l.reqs = append(l.reqs, req)
	return llm.Response{Choices: []llm.Choice{{Content: out}}}, err
}

// prompts returns the prompts of the calls with the purpose, in order.
func (l *learner) prompts(purpose string) []string {
	var out []string
	for _, r := range l.reqs {
		if r.Purpose == purpose {
			out = append(out, r.Messages[0].Content)
		}
	}
	return out
}

// fakeMemory is a Memory with other runs' reflections to start from.
type fakeMemory struct {
	localMemory
	runs     map[int64][]reading.Reflection
	fromRun  int64
	fromKeys []string
}

func (m *fakeMemory) From(_ context.Context, run int64, key string) ([]reading.Reflection, error) {
	m.fromRun = run
	m.fromKeys = append(m.fromKeys, key)
	return m.runs[run], nil
}

// fakeCheckpoint keeps the last Save as JSON, as the store does.
type fakeCheckpoint struct {
	next  int
	state []byte
	saves int
}

func (c *fakeCheckpoint) Save(_ context.Context, next int, state any) error {
	b, err := json.Marshal(state)
	c.next, c.state = next, b
	c.saves++
	return err
}

func (c *fakeCheckpoint) Load(_ context.Context, state any) (int, bool, error) {
	if c.state == nil {
		return 0, false, nil
	}
	return c.next, true, json.Unmarshal(c.state, state)
}

// trialLog records trace steps of every trial.
type trialLog struct {
	mu    sync.Mutex
	steps []string // "trial step kind"
}

func (l *trialLog) Tree(context.Context, []TreeNode) error { return nil }
func (l *trialLog) Step(_ context.Context, trial, step int, kind, _ string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.steps = append(l.steps, fmt.Sprintf("%d %d %s", trial, step, kind))
	return nil
}

func reflexionRun(t *testing.T, l *learner, env Env, set map[string]any) Result {
	t.Helper()
	s := newStrategy(t, "reflexion", set)
	res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func perTrial(res Result, prefix string, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = res.Metrics[fmt.Sprintf("%s%d", prefix, i+1)]
	}
	return out
}

func TestReflexionStopsAtFirstSolvedTrial(t *testing.T) {
	t.Parallel()
	l := &learner{actor: []string{attempt(1), attempt(2), rightAnswer}}
	log := &trialLog{}
	env := testEnv(t, l)
	env.Trace = log
	res := reflexionRun(t, l, env, nil)
	if got := len(l.prompts("cot")); got != 3 {
		t.Errorf("actor calls = %d, want 3 (stops at the solved trial)", got)
	}
	if got := len(l.prompts("reflect")); got != 2 {
		t.Errorf("reflections = %d, want 2", got)
	}
	if !res.Score.Correct || res.Accuracy != 1 || res.Output != rightAnswer {
		t.Errorf("result = %+v", res)
	}
	if got := perTrial(res, "after_trial_", 5); !slices.Equal(got, []float64{0, 0, 1, 1, 1}) {
		t.Errorf("after_trial = %v", got)
	}
	if got := perTrial(res, "ran_trial_", 5); !slices.Equal(got, []float64{1, 1, 1, 0, 0}) {
		t.Errorf("ran_trial = %v", got)
	}
	if res.Metrics["trials"] != 3 || res.Metrics["any_correct"] != 1 {
		t.Errorf("metrics = %v", res.Metrics)
	}
	d := res.Detail.(reading.ReflexionDetail)
	if !d.PeeksAtGold || d.Evaluator != EvaluatorOracle || len(d.Trials) != 3 || d.Trials[0].Reflection != "reflection 1" {
		t.Errorf("detail = %+v", d)
	}
	want := []string{"0 0 answer", "0 1 evaluation", "0 2 reflection", "1 0 answer", "1 1 evaluation", "1 2 reflection",
		"2 0 answer", "2 1 evaluation"}
	if !slices.Equal(log.steps, want) {
		t.Errorf("trace steps:\n%v\nwant\n%v", log.steps, want)
	}

	// Never solved: every trial runs, no reflection after the last.
	l = &learner{actor: []string{wrongAnswer}}
	res = reflexionRun(t, l, testEnv(t, l), map[string]any{"trials": 3})
	if len(l.prompts("cot")) != 3 || len(l.prompts("reflect")) != 2 || res.Accuracy != 0 {
		t.Errorf("unsolved: %d actor calls, %d reflections, accuracy %v", len(l.prompts("cot")), len(l.prompts("reflect")), res.Accuracy)
	}
	if got := perTrial(res, "after_trial_", 3); !slices.Equal(got, []float64{0, 0, 0}) {
		t.Errorf("after_trial = %v", got)
	}
}

func TestReflexionWhatEachTrialSees(t *testing.T) {
	t.Parallel()
	// has reports which attempts and reflections a prompt shows.
	has := func(prompt string) (attempts, reflections []int) {
		for i := 1; i <= 5; i++ {
			if strings.Contains(prompt, fmt.Sprintf("attempt %d\n", i)) {
				attempts = append(attempts, i)
			}
			if strings.Contains(prompt, fmt.Sprintf("- reflection %d\n", i)) {
				reflections = append(reflections, i)
			}
		}
		return
	}
	cases := []struct {
		set          map[string]any
		reflectCalls int
		attempts     [][]int // per trial
		reflections  [][]int
	}{
		{map[string]any{"reflection": ReflectNone}, 0,
			[][]int{nil, nil, nil, nil}, [][]int{nil, nil, nil, nil}},
		{map[string]any{"reflection": ReflectLastAttempt}, 0,
			[][]int{nil, {1}, {2}, {3}}, [][]int{nil, nil, nil, nil}},
		{map[string]any{"reflection": ReflectReflexion}, 3,
			[][]int{nil, nil, nil, nil}, [][]int{nil, {1}, {1, 2}, {1, 2, 3}}},
		{map[string]any{"reflection": ReflectLastAttemptAndReflexion}, 3,
			[][]int{nil, {1}, {2}, {3}}, [][]int{nil, {1}, {2}, {3}}},
		{map[string]any{"reflection": ReflectReflexion, "memory": 2}, 3,
			[][]int{nil, nil, nil, nil}, [][]int{nil, {1}, {1, 2}, {2, 3}}},
		{map[string]any{"reflection": ReflectLastAttemptAndReflexion, "memory": 3}, 3,
			[][]int{nil, {1}, {2}, {3}}, [][]int{nil, {1}, {2}, {3}}},
	}
	for _, c := range cases {
		l := &learner{actor: []string{attempt(1), attempt(2), attempt(3), attempt(4)}}
		c.set["trials"] = 4
		res := reflexionRun(t, l, testEnv(t, l), c.set)
		ps := l.prompts("cot")
		if len(ps) != 4 || len(l.prompts("reflect")) != c.reflectCalls {
			t.Errorf("%v: %d actor calls, %d reflect calls; want 4, %d", c.set, len(ps), len(l.prompts("reflect")), c.reflectCalls)
			continue
		}
		for i, p := range ps {
			a, r := has(p)
			if !slices.Equal(a, c.attempts[i]) || !slices.Equal(r, c.reflections[i]) {
				t.Errorf("%v trial %d shows attempts %v reflections %v; want %v %v", c.set, i+1, a, r, c.attempts[i], c.reflections[i])
			}
			if !strings.HasSuffix(p, "Input: 4 5 6 10\n") {
				t.Errorf("%v trial %d: the puzzle is not last:\n%s", c.set, i+1, p)
			}
		}
		if c.reflectCalls == 0 && strings.Contains(ps[3], "Reflections:") {
			t.Errorf("%v: a reflections section without reflections", c.set)
		}
		d := res.Detail.(reading.ReflexionDetail)
		if d.Trials[3].ShownReflections != len(c.reflections[3]) || d.Trials[3].ShownLastAttempt != (c.attempts[3] != nil) {
			t.Errorf("%v: detail says trial 4 showed %d reflections, last attempt %v", c.set, d.Trials[3].ShownReflections, d.Trials[3].ShownLastAttempt)
		}
		// The reflector sees the failed trial's trajectory, not the gold.
		for i, p := range l.prompts("reflect") {
			if !strings.Contains(p, fmt.Sprintf("attempt %d\n", i+1)) || !strings.Contains(p, "Diagnose a possible reason for failure") {
				t.Errorf("%v: reflect prompt %d:\n%s", c.set, i+1, p)
			}
		}
	}
}

func TestReflexionMemoryFrom(t *testing.T) {
	t.Parallel()
	seeds := []reading.Reflection{{RunID: 7, Trial: 0, Text: "seed A"}, {RunID: 7, Trial: 1, Text: "seed B"}}
	for _, c := range []struct {
		set       map[string]any
		first     []string // reflections in the first trial's prompt
		notFirst  []string
		fromCalls int
	}{
		{map[string]any{"memory_from": 7}, []string{"seed A", "seed B"}, nil, 1},
		{map[string]any{"memory_from": 7, "memory": 1}, []string{"seed B"}, []string{"seed A"}, 1},
		{map[string]any{"memory_from": 7, "reflection": ReflectLastAttemptAndReflexion}, []string{"seed B"}, []string{"seed A"}, 1},
		{map[string]any{"memory_from": 7, "reflection": ReflectNone}, nil, []string{"seed A", "seed B"}, 0},
		{map[string]any{}, nil, []string{"seed A", "seed B"}, 0},
	} {
		l := &learner{actor: []string{attempt(1), rightAnswer}}
		mem := &fakeMemory{runs: map[int64][]reading.Reflection{7: seeds}}
		env := testEnv(t, l)
		env.Memory = mem
		res := reflexionRun(t, l, env, c.set)
		ps := l.prompts("cot")
		for _, s := range c.first {
			if !strings.Contains(ps[0], "- "+s+"\n") {
				t.Errorf("%v: first prompt lacks %q", c.set, s)
			}
		}
		for _, s := range c.notFirst {
			if strings.Contains(ps[0], s) {
				t.Errorf("%v: first prompt shows %q", c.set, s)
			}
		}
		if len(mem.fromKeys) != c.fromCalls || c.fromCalls > 0 && (mem.fromRun != 7 || mem.fromKeys[0] != "4 5 6 10") {
			t.Errorf("%v: From called %v with run %d", c.set, mem.fromKeys, mem.fromRun)
		}
		// New reflections go to this run's memory, after the seeds.
		own, _ := mem.Reflections(context.Background(), "4 5 6 10")
		if c.set["reflection"] == ReflectNone {
			continue
		}
		if len(own) != 1 || own[0].Text != "reflection 1" || own[0].Trial != 0 {
			t.Errorf("%v: own memory = %+v", c.set, own)
		}
		if c.fromCalls > 0 {
			d := res.Detail.(reading.ReflexionDetail)
			if len(d.Seeded) != 2 || d.MemoryFrom != 7 {
				t.Errorf("%v: detail seeded %+v", c.set, d.Seeded)
			}
			if c.set["memory"] == nil && c.set["reflection"] == nil && !strings.Contains(ps[1], "- seed A\n- seed B\n- reflection 1\n") {
				t.Errorf("%v: second prompt lacks seeds then own reflection:\n%s", c.set, ps[1])
			}
		}
	}
	// Without a store there is nothing to start from.
	l := &learner{actor: []string{attempt(1)}}
	s := newStrategy(t, "reflexion", map[string]any{"memory_from": 3})
	if _, err := s.Solve(context.Background(), testEnv(t, l), puzzle(t, "4 5 6 10")); !errors.Is(err, errNoMemory) {
		t.Errorf("memory_from without a memory: %v", err)
	}
}

func TestReflexionSelfEvaluator(t *testing.T) {
	t.Parallel()
	// A wrong answer judged correct stops the loop; the accuracy is the truth.
	l := &learner{actor: []string{wrongAnswer, rightAnswer}, judge: []string{"Looks right.\nJudgement: correct"}}
	res := reflexionRun(t, l, testEnv(t, l), map[string]any{"evaluator": EvaluatorSelf})
	if len(l.prompts("cot")) != 1 || res.Accuracy != 0 || res.Score.Correct {
		t.Errorf("false stop: %d trials, accuracy %v", len(l.prompts("cot")), res.Accuracy)
	}
	if got := perTrial(res, "after_trial_", 5); !slices.Equal(got, []float64{0, 0, 0, 0, 0}) {
		t.Errorf("after_trial = %v", got)
	}
	if res.Metrics["judge_accuracy"] != 0 || res.Detail.(reading.ReflexionDetail).PeeksAtGold {
		t.Errorf("metrics %v detail %+v", res.Metrics, res.Detail)
	}
	ev := l.prompts("self_eval")
	if len(ev) != 1 || !strings.Contains(ev[0], "Proposed answer: (10 - 6) * (5 + 4)\n") || !strings.Contains(ev[0], "Input: 4 5 6 10") {
		t.Errorf("self_eval prompts: %q", ev)
	}

	// A right answer judged wrong goes on; after_trial follows the answer
	// standing after each trial, not "any so far".
	l = &learner{actor: []string{rightAnswer, wrongAnswer, rightAnswer},
		judge: []string{"Judgement: incorrect", "Judgement: incorrect", "Judgement: correct"}}
	res = reflexionRun(t, l, testEnv(t, l), map[string]any{"evaluator": EvaluatorSelf, "trials": 4})
	if got := perTrial(res, "after_trial_", 4); !slices.Equal(got, []float64{1, 0, 1, 1}) {
		t.Errorf("after_trial = %v", got)
	}
	if len(l.prompts("reflect")) != 2 || res.Metrics["any_correct"] != 1 || res.Metrics["trials"] != 3 {
		t.Errorf("%d reflections, metrics %v", len(l.prompts("reflect")), res.Metrics)
	}
	if got := res.Metrics["judge_accuracy"]; got < 0.66 || got > 0.67 {
		t.Errorf("judge_accuracy = %v, want 2/3", got)
	}

	// The oracle never asks the model.
	l = &learner{actor: []string{wrongAnswer, rightAnswer}}
	reflexionRun(t, l, testEnv(t, l), nil)
	if len(l.prompts("self_eval")) != 0 {
		t.Error("oracle asked for a self-evaluation")
	}
}

func TestReflexionResumesFromCheckpoint(t *testing.T) {
	t.Parallel()
	outputs := []string{attempt(1), attempt(2), attempt(3), rightAnswer}
	// Uninterrupted.
	whole := &learner{actor: outputs}
	want := reflexionRun(t, whole, testEnv(t, whole), nil)

	// Stopped when the third trial asks the actor.
	mem := &localMemory{}
	cp := &fakeCheckpoint{}
	first := &learner{actor: outputs, failAt: 3}
	env := testEnv(t, first)
	env.Memory, env.Checkpoint = mem, cp
	s := newStrategy(t, "reflexion", nil)
	if _, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10")); !errors.Is(err, errStop) {
		t.Fatalf("interrupted solve: %v", err)
	}
	if cp.next != 2 || cp.saves != 2 {
		t.Fatalf("checkpoint next=%d after %d saves, want 2 after 2", cp.next, cp.saves)
	}
	// A reflection of the interrupted trial left in memory is replaced.
	if err := mem.Add(context.Background(), "4 5 6 10", 2, "stale reflection of trial 3"); err != nil {
		t.Fatal(err)
	}

	// Resumed: only trials 3 and 4 run, trial 3 sees both stored reflections.
	rest := &learner{actor: outputs[2:]}
	rest.n = map[string]int{"reflect": 2}
	env.Sampler = rest
	got, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	ps := rest.prompts("cot")
	if len(ps) != 2 || !strings.Contains(ps[0], "- reflection 1\n- reflection 2\n") || strings.Contains(ps[0], "stale") {
		t.Fatalf("resumed actor prompts: %d, first:\n%s", len(ps), ps[0])
	}
	if !slices.Equal(perTrial(got, "after_trial_", 5), perTrial(want, "after_trial_", 5)) || got.Accuracy != want.Accuracy ||
		got.Metrics["trials"] != want.Metrics["trials"] {
		t.Errorf("resumed metrics %v, uninterrupted %v", got.Metrics, want.Metrics)
	}
	gd, wd := got.Detail.(reading.ReflexionDetail), want.Detail.(reading.ReflexionDetail)
	if len(gd.Trials) != len(wd.Trials) || gd.Trials[1].Reflection != "reflection 2" || gd.Trials[2].Reflection != "reflection 3" {
		t.Errorf("resumed trials %+v", gd.Trials)
	}
	own, _ := mem.Reflections(context.Background(), "4 5 6 10")
	if len(own) != 3 || own[2].Text != "reflection 3" {
		t.Errorf("memory after resume: %+v", own)
	}

	// A checkpoint at the solved trial finishes without asking anything.
	none := &learner{actor: []string{"unused"}}
	env.Sampler = none
	again, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil || len(none.reqs) != 0 || again.Accuracy != 1 {
		t.Errorf("solve from a finished checkpoint: %v, %d calls, accuracy %v", err, len(none.reqs), again.Accuracy)
	}
}

func TestReflexionReActActor(t *testing.T) {
	t.Parallel()
	// Trial 1 searches and answers wrong; trial 2 answers right at once.
	inst := hotpotRow(t, 0)
	l := &learner{actor: nil}
	replies := text(
		"Thought: look it up\nAction: Search[VIVA Media]",
		"Thought: done\nAction: Finish[wrong answer]",
		"Thought: I know it\nAction: Finish["+inst.Gold+"]",
	)
	reflect := 0
	s := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Purpose == "reflect" {
			reflect++
			l.reqs = append(l.reqs, req)
			return llm.Response{Choices: []llm.Choice{{Content: "reflection 1"}}}, nil
		}
		return replies.Sample(ctx, req)
	})
	env, _ := hotpotEnv(t, s)
	log := &trialLog{}
	env.Trace = log
	res, err := newStrategy(t, "reflexion", map[string]any{"actor": ActorReAct, "reflect_tokens": 40}).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	if res.Accuracy != 1 || reflect != 1 || len(replies.reqs) != 3 {
		t.Fatalf("accuracy %v, %d reflections, %d actor turns", res.Accuracy, reflect, len(replies.reqs))
	}
	if p := replies.reqs[2].Messages[0].Content; !strings.Contains(p, "- reflection 1\n") || !strings.HasSuffix(strings.TrimSpace(p), "Question: "+inst.Input) {
		t.Errorf("second trial's prompt:\n%s", p)
	}
	// The reflector sees the scratchpad, the long observation shortened.
	rp := l.reqs[0].Messages[0].Content
	for _, want := range []string{"Action: Search[VIVA Media]", "Observation: " + truncatedObservation, "Action: Finish[wrong answer]", "Final answer: wrong answer"} {
		if !strings.Contains(rp, want) {
			t.Errorf("reflect prompt lacks %q:\n%s", want, rp)
		}
	}
	// Trace: the actor's steps, then evaluation and reflection, per trial.
	want := []string{"0 0 thought", "0 1 action", "0 2 observation", "0 3 thought", "0 4 action", "0 5 observation", "0 6 answer",
		"0 7 evaluation", "0 8 reflection", "1 0 thought", "1 1 action", "1 2 observation", "1 3 answer", "1 4 evaluation"}
	if !slices.Equal(log.steps, want) {
		t.Errorf("trace:\n%v\nwant\n%v", log.steps, want)
	}
}

func TestTruncateTrajectory(t *testing.T) {
	t.Parallel()
	long := "Observation: " + strings.Repeat("word ", 100)
	longer := "Observation: " + strings.Repeat("word ", 200)
	traj := strings.Join([]string{"Thought: a", "Action: Search[x]", long, "Thought: b", "Action: Search[y]", longer, "Action: Finish[z]"}, "\n")
	if got := truncateTrajectory(traj, 0); got != traj {
		t.Error("budget 0 changed the trajectory")
	}
	if got := truncateTrajectory(traj, 10000); got != traj {
		t.Error("a fitting trajectory changed")
	}
	// The longer observation goes first, and alone is enough at 200 tokens.
	got := truncateTrajectory(traj, 200)
	if !strings.Contains(got, long) || strings.Contains(got, longer) || !strings.Contains(got, "Observation: "+truncatedObservation) {
		t.Errorf("at 200 tokens:\n%s", got)
	}
	got = truncateTrajectory(traj, 20)
	if strings.Count(got, truncatedObservation) != 2 || !strings.Contains(got, "Action: Finish[z]") {
		t.Errorf("at 20 tokens:\n%s", got)
	}
}

func TestParseJudgement(t *testing.T) {
	t.Parallel()
	for reply, want := range map[string]bool{
		"Judgement: correct":                           true,
		"It checks out.\nJudgement: Correct.":          true,
		"Judgement: incorrect":                         false,
		"judgment: wrong":                              false,
		"Judgement: not correct":                       false,
		"Judgement: correct\n... Judgement: incorrect": false,
		"Yes, the answer is right.":                    true,
		"":                                             false,
		"I cannot tell.":                               false,
	} {
		if got := ParseJudgement(reply); got != want {
			t.Errorf("ParseJudgement(%q) = %v", reply, got)
		}
	}
}

func TestReflexionParamsSummaryShowsEvaluator(t *testing.T) {
	t.Parallel()
	spec, err := Lookup("reflexion")
	if err != nil {
		t.Fatal(err)
	}
	v, err := param.Resolve(spec.Params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Summary(spec.Params); got != "actor=cot evaluator=oracle" {
		t.Errorf("summary of the defaults = %q", got)
	}
	if !strings.Contains(spec.Doc, "oracle") {
		t.Errorf("doc line does not say the oracle peeks: %q", spec.Doc)
	}
	// Reflexion's prompts check the task's context and tools.
	s := newStrategy(t, "reflexion", map[string]any{"context": "gold"})
	if err := s.(TaskChecker).CheckTask(testEnv(t, nil).Task); err == nil {
		t.Error("context=gold accepted on game24")
	}
}
