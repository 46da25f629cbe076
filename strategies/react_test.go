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
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// turns answers each request with the next scripted choice and records a
// copy of every request.
type turns struct {
	replies []llm.Choice
	reqs    []llm.Request
}

func (s *turns) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	req.Messages = slices.Clone(req.Messages)
	s.reqs = append(s.reqs, req)
	if len(s.reqs) > len(s.replies) {
		return llm.Response{}, errors.New("script exhausted")
	}
	return llm.Response{Choices: []llm.Choice{s.replies[len(s.reqs)-1]}}, nil
}

func text(replies ...string) *turns {
	s := &turns{}
	for _, r := range replies {
		s.replies = append(s.replies, llm.Choice{Content: r})
	}
	return s
}

// traceLog records trajectory steps.
type traceLog struct {
	mu    sync.Mutex
	steps []string // "seq kind: content"
}

func (l *traceLog) Tree(context.Context, []TreeNode) error { return nil }
func (l *traceLog) Step(_ context.Context, trial, step int, kind, content string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if trial != 0 || step != len(l.steps) {
		return fmt.Errorf("step %d of trial %d out of order", step, trial)
	}
	l.steps = append(l.steps, kind+": "+content)
	return nil
}

func (l *traceLog) kinds() string {
	var ks []string
	for _, s := range l.steps {
		k, _, _ := strings.Cut(s, ":")
		ks = append(ks, k)
	}
	return strings.Join(ks, " ")
}

func hotpotEnv(t *testing.T, s llm.Sampler) (Env, *traceLog) {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	log := &traceLog{}
	return Env{Sampler: s, Task: hotpotqa.NewTask(), Prompts: lib, Seed: 3, Trace: log}, log
}

func hotpotRow(t *testing.T, row int) tasks.Instance {
	t.Helper()
	all, err := hotpotqa.NewTask().Instances()
	if err != nil {
		t.Fatal(err)
	}
	return all[row]
}

func newStrategy(t *testing.T, name string, set map[string]any) Strategy {
	t.Helper()
	spec, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := param.Resolve(spec.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func solve(t *testing.T, s Strategy, env Env, inst tasks.Instance) (Result, reading.ReActTrajectory) {
	t.Helper()
	if tc, ok := s.(TaskChecker); ok {
		if err := tc.CheckTask(env.Task); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := res.Detail.(reading.ReActTrajectory)
	return res, tr
}

// observations returns the observation of every action, in order.
func observations(tr reading.ReActTrajectory) []string {
	var out []string
	for _, st := range tr.Steps {
		for _, a := range st.Actions {
			out = append(out, a.Observation)
		}
	}
	return out
}

const gmbh = "Gesellschaft mit beschränkter Haftung" // the answer of row 0
const validActions = "Valid actions are Search[entity], Lookup[keyword], Finish[answer]."

func TestReActTextProtocol(t *testing.T) {
	t.Parallel()
	sc := text(
		"Thought: I need VIVA Media.\nAction: search [ VIVA Media ]",
		"I am not sure what to do.",
		"Thought: jump\nAction: Jump[high]",
		"",
		"thought: find 2004\nACTION 5: lookup[2004",
		"Thought: done.\nAction: Finish[**"+gmbh+"**] because GmbH stands for it.\nObservation: invented",
	)
	env, log := hotpotEnv(t, sc)
	res, tr := solve(t, newStrategy(t, "react", nil), env, hotpotRow(t, 0))
	obs := observations(tr)
	want := []string{
		"VIVA Media GmbH (until 2004",
		`Invalid action: no "Action:" line found. ` + validActions,
		`Invalid action: unknown action "Jump". ` + validActions,
		"Invalid action: the reply was empty. " + validActions,
		"(Result 1 / 2) VIVA Media GmbH (until 2004",
		"Episode finished.",
	}
	if len(obs) != len(want) {
		t.Fatalf("observations %q", obs)
	}
	for i := range want {
		if !strings.HasPrefix(obs[i], want[i]) {
			t.Errorf("observation %d = %q, want %q…", i, obs[i], want[i])
		}
	}
	if res.Output != "Answer: "+gmbh || !res.Score.Correct || res.Accuracy != 1 {
		t.Errorf("output %q score %+v", res.Output, res.Score)
	}
	wantMetrics := map[string]float64{"em": 1, "f1": 1, "hit_limit": 0, "steps": 6, "invalid_actions": 3}
	for k, v := range wantMetrics {
		if res.Metrics[k] != v {
			t.Errorf("metric %s = %v, want %v (all: %v)", k, res.Metrics[k], v, res.Metrics)
		}
	}
	if !tr.Finished || tr.HitLimit || tr.Protocol != "text" || tr.Steps[1].Reply != "I am not sure what to do." {
		t.Errorf("trajectory %+v", tr)
	}
	if tr.Steps[0].Thought != "I need VIVA Media." || tr.Steps[0].Actions[0].Call != "search[VIVA Media]" || tr.Steps[0].Actions[0].Tool != "search" {
		t.Errorf("step 1: %+v", tr.Steps[0])
	}
	for i, req := range sc.reqs {
		if req.Purpose != "react" || req.Call != fmt.Sprintf("t0/s%d/react", i+1) || len(req.Tools) != 0 || !slices.Equal(req.Stop, []string{"\nObservation"}) {
			t.Errorf("request %d: %+v", i, req)
		}
		if len(req.Messages) != 1+2*i {
			t.Errorf("request %d has %d messages", i, len(req.Messages))
		}
		if i > 0 {
			last := req.Messages[len(req.Messages)-1]
			if last.Role != "user" || !strings.HasPrefix(last.Content, "Observation: ") {
				t.Errorf("request %d ends with %+v", i, last)
			}
			if prev := req.Messages[len(req.Messages)-2]; prev.Role != "assistant" || prev.Content != sc.replies[i-1].Content {
				t.Errorf("request %d: assistant turn %+v", i, prev)
			}
		}
	}
	if !strings.Contains(sc.reqs[0].Messages[0].Content, "Question: "+hotpotRow(t, 0).Input) {
		t.Error("the prompt does not end with the question")
	}
	if got := log.kinds(); got != "thought action observation thought observation thought action observation observation thought action observation thought action observation answer" {
		t.Errorf("trace kinds: %s", got)
	}
	if last := log.steps[len(log.steps)-1]; last != "answer: Answer: "+gmbh {
		t.Errorf("last trace step %q", last)
	}
}

func TestReActJSONProtocol(t *testing.T) {
	t.Parallel()
	sc := text(
		"Sure:\n```json\n{\"thought\": \"t1\", \"action\": \"search\", \"input\": \"VIVA Media\"}\n```",
		`{"thought": "t2", "action": "lookup", "input": "2004"`,
		`{"thought": "t3", "action": "fly", "input": "away"}`,
		`{"thought": "t4"}`,
		`Here: {"Thought": "t5", "Action": "Finish", "Action_Input": "GmbH"} hope it helps`,
	)
	env, _ := hotpotEnv(t, sc)
	res, tr := solve(t, newStrategy(t, "react", map[string]any{"protocol": "json"}), env, hotpotRow(t, 0))
	obs := observations(tr)
	const how = `Reply with one JSON object {"thought": "...", "action": "...", "input": ...}; valid actions are search, lookup, finish.`
	want := []string{
		"VIVA Media GmbH (until 2004",
		"Invalid reply: malformed JSON: unexpected EOF. " + how,
		`Invalid reply: unknown action "fly". ` + how,
		`Invalid reply: the object has no "action". ` + how,
		"Episode finished.",
	}
	if len(obs) != len(want) {
		t.Fatalf("observations %q", obs)
	}
	for i := range want {
		if !strings.HasPrefix(obs[i], want[i]) {
			t.Errorf("observation %d = %q, want %q…", i, obs[i], want[i])
		}
	}
	if res.Output != "Answer: GmbH" || res.Score.Correct || res.Metrics["em"] != 0 || res.Metrics["f1"] != 0 || res.Metrics["invalid_actions"] != 3 {
		t.Errorf("output %q metrics %v", res.Output, res.Metrics)
	}
	for i, st := range tr.Steps {
		if want := fmt.Sprintf("t%d", i+1); i != 1 && st.Thought != want || i == 1 && st.Thought != "" {
			t.Errorf("step %d thought %q", i+1, st.Thought)
		}
	}
	if sc.reqs[0].Stop != nil {
		t.Errorf("json protocol sent stop %q", sc.reqs[0].Stop)
	}
}

func TestReActToolsProtocol(t *testing.T) {
	t.Parallel()
	sc := &turns{replies: []llm.Choice{
		{Reasoning: "I should open VIVA Media.", ToolCalls: []llm.ToolCall{
			{ID: "a1", Name: "search", Arguments: `{"entity": "VIVA Media"}`},
			{Name: "lookup", Arguments: `{"keyword": "2004"}`}, // no id: the agent gives one
		}},
		{Content: "Trying things.", ToolCalls: []llm.ToolCall{
			{ID: "b", Name: "teleport", Arguments: `{}`},
			{ID: "b", Name: "Search", Arguments: `{"entity": `}, // duplicate id, malformed arguments
			{ID: "c", Name: "lookup", Arguments: `{"word": "x"}`},
		}},
		{Content: "I think I know the answer."}, // no tool call
		{Reasoning: "Done.", ToolCalls: []llm.ToolCall{
			{ID: "f", Name: "finish", Arguments: `{"answer": "` + gmbh + `"}`},
			{ID: "g", Name: "search", Arguments: `{"entity": "x"}`},
		}},
	}}
	env, _ := hotpotEnv(t, sc)
	res, tr := solve(t, newStrategy(t, "react", map[string]any{"protocol": "tools"}), env, hotpotRow(t, 0))
	if len(sc.reqs) != 4 || res.Output != "Answer: "+gmbh || !res.Score.Correct || res.Metrics["em"] != 1 {
		t.Fatalf("%d requests, output %q, score %+v", len(sc.reqs), res.Output, res.Score)
	}
	for i, req := range sc.reqs {
		if len(req.Tools) != 3 || req.Stop != nil {
			t.Fatalf("request %d: tools %v stop %v", i, req.Tools, req.Stop)
		}
		for _, spec := range req.Tools {
			var schema map[string]any
			if err := json.Unmarshal(spec.Parameters, &schema); err != nil || schema["type"] != "object" || spec.Description == "" {
				t.Errorf("tool %s: schema %s", spec.Name, spec.Parameters)
			}
		}
	}
	// Every tool call is answered, in order, by a tool message with its id,
	// and the assistant turn keeps its reasoning content.
	msgs := sc.reqs[3].Messages
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = m.Role
	}
	if strings.Join(roles, " ") != "user assistant tool tool assistant tool tool tool assistant user" {
		t.Fatalf("history roles: %v", roles)
	}
	if msgs[1].Reasoning != "I should open VIVA Media." || msgs[4].Content != "Trying things." {
		t.Errorf("assistant turns lost content: %+v %+v", msgs[1], msgs[4])
	}
	for _, turn := range []int{1, 4} {
		calls := msgs[turn].ToolCalls
		ids := map[string]bool{}
		for j, c := range calls {
			if c.ID == "" || ids[c.ID] {
				t.Errorf("turn %d: call %d id %q is empty or repeated", turn, j, c.ID)
			}
			ids[c.ID] = true
			if got := msgs[turn+1+j]; got.ToolCallID != c.ID || got.Name != c.Name {
				t.Errorf("turn %d: call %s answered by %+v", turn, c.ID, got)
			}
		}
	}
	if msgs[2].ToolCallID != "a1" || msgs[3].ToolCallID != "call_1_1" || msgs[6].ToolCallID != "call_2_1" {
		t.Errorf("ids: %q %q %q", msgs[2].ToolCallID, msgs[3].ToolCallID, msgs[6].ToolCallID)
	}
	if !strings.HasPrefix(msgs[2].Content, "VIVA Media GmbH") || !strings.HasPrefix(msgs[3].Content, "(Result 1 / 2)") {
		t.Errorf("observations: %q %q", msgs[2].Content, msgs[3].Content)
	}
	checks := []struct {
		i    int
		want string
	}{
		{5, `Unknown tool "teleport". Available tools: search, lookup, finish.`},
		{6, "Invalid arguments for search: malformed JSON"},
		{7, `Invalid arguments for lookup: missing "keyword"`},
		{9, "Observation: No tool was called. Call one of the tools; call finish with your answer when you are done."},
	}
	for _, c := range checks {
		if !strings.HasPrefix(msgs[c.i].Content, c.want) {
			t.Errorf("message %d = %q, want %q…", c.i, msgs[c.i].Content, c.want)
		}
	}
	last := tr.Steps[3]
	if len(last.Actions) != 2 || last.Actions[0].Observation != "Episode finished." || last.Actions[1].Observation != "Not run: the task has already finished." {
		t.Errorf("finish step: %+v", last)
	}
	if tr.Invalid != 4 || res.Metrics["invalid_actions"] != 4 || tr.Steps[0].Thought != "I should open VIVA Media." || tr.Steps[1].Thought != "Trying things." {
		t.Errorf("trajectory: invalid %d, thoughts %q %q", tr.Invalid, tr.Steps[0].Thought, tr.Steps[1].Thought)
	}
}

func TestReActStepLimit(t *testing.T) {
	t.Parallel()
	search := func(id string) llm.Choice {
		return llm.Choice{ToolCalls: []llm.ToolCall{{ID: id, Name: "search", Arguments: `{"entity": "VIVA Media"}`}}}
	}
	t.Run("tools are withdrawn on the last step", func(t *testing.T) {
		sc := &turns{replies: []llm.Choice{search("1"), search("2"), {Reasoning: "out of steps", Content: "Answer: " + gmbh}}}
		env, _ := hotpotEnv(t, sc)
		res, tr := solve(t, newStrategy(t, "react", map[string]any{"protocol": "tools", "max_steps": 3}), env, hotpotRow(t, 0))
		if len(sc.reqs) != 3 || len(sc.reqs[0].Tools) != 3 || len(sc.reqs[1].Tools) != 3 || sc.reqs[2].Tools != nil {
			t.Fatalf("tools per request: %d %d %d", len(sc.reqs[0].Tools), len(sc.reqs[1].Tools), len(sc.reqs[2].Tools))
		}
		msgs := sc.reqs[2].Messages
		if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Content, "last step") || !strings.Contains(last.Content, `"Answer:"`) {
			t.Errorf("last message %+v", last)
		}
		if res.Metrics["hit_limit"] != 1 || !tr.HitLimit || tr.Finished || res.Output != "Answer: "+gmbh || !res.Score.Correct {
			t.Errorf("hit_limit %v, trajectory %+v, output %q", res.Metrics["hit_limit"], tr, res.Output)
		}
		if tr.Steps[2].Thought != "out of steps" {
			t.Errorf("last thought %q", tr.Steps[2].Thought)
		}
	})
	t.Run("text: told to finish; another action is not run", func(t *testing.T) {
		sc := text("Action: Search[VIVA Media]", "Thought: more\nAction: Lookup[2004]")
		env, _ := hotpotEnv(t, sc)
		res, tr := solve(t, newStrategy(t, "react", map[string]any{"max_steps": 2}), env, hotpotRow(t, 0))
		last := sc.reqs[1].Messages[2]
		if !strings.HasPrefix(last.Content, "Observation: VIVA Media GmbH") ||
			!strings.HasSuffix(last.Content, "\n\nThis is the last step: give your final answer now with Finish[answer].") {
			t.Errorf("last observation %q", last.Content)
		}
		if !tr.HitLimit || tr.Finished || res.Score.Correct || res.Output != "Thought: more\nAction: Lookup[2004]" {
			t.Errorf("trajectory %+v output %q", tr, res.Output)
		}
		if a := tr.Steps[1].Actions[0]; a.Observation != "Not run: the step limit was reached." {
			t.Errorf("last action %+v", a)
		}
	})
	t.Run("json: finishing on the last step", func(t *testing.T) {
		sc := text(`{"action": "finish", "input": "` + gmbh + `"}`)
		env, _ := hotpotEnv(t, sc)
		res, tr := solve(t, newStrategy(t, "react", map[string]any{"protocol": "json", "max_steps": 1}), env, hotpotRow(t, 0))
		prompt := sc.reqs[0].Messages[0].Content
		if !strings.HasSuffix(prompt, `This is the last step: give your final answer now with {"thought": "...", "action": "finish", "input": ...}.`) {
			t.Errorf("one-step prompt ends %q", prompt[max(0, len(prompt)-120):])
		}
		if !tr.HitLimit || !tr.Finished || !res.Score.Correct || res.Metrics["hit_limit"] != 1 {
			t.Errorf("trajectory %+v", tr)
		}
	})
	t.Run("never finishing", func(t *testing.T) {
		var replies []string
		for range 7 {
			replies = append(replies, "Thought: again\nAction: Search[VIVA Media]")
		}
		sc := text(replies...)
		env, _ := hotpotEnv(t, sc)
		res, tr := solve(t, newStrategy(t, "react", nil), env, hotpotRow(t, 0))
		if len(sc.reqs) != 7 || len(tr.Steps) != 7 || !tr.HitLimit || res.Score.Correct || res.Metrics["steps"] != 7 {
			t.Errorf("%d requests, trajectory %+v", len(sc.reqs), tr)
		}
	})
}

func TestReActHostileOutput(t *testing.T) {
	huge := strings.Repeat("garbage ", 200_000)
	var calls []llm.ToolCall
	for i := range 12 {
		calls = append(calls, llm.ToolCall{ID: fmt.Sprint("x", i), Name: "lookup", Arguments: `{"keyword": "a"}`})
	}
	sc := &turns{replies: []llm.Choice{
		{Content: huge, Reasoning: huge},
		{Content: "Thought: " + huge + "\nAction: Search[" + huge + "]"},
		{ToolCalls: []llm.ToolCall{{ID: "big", Name: "search", Arguments: `{"entity": "` + huge + `"}`}}},
		{ToolCalls: calls},
		{Content: "\xff\xfe\x00 Action: Finish[\xff]"},
		{ToolCalls: []llm.ToolCall{{ID: "n", Name: "", Arguments: "null"}, {ID: "m", Name: strings.Repeat("é", 10000), Arguments: "[1,2]"}}},
		{ToolCalls: []llm.ToolCall{{ID: "done", Name: "finish", Arguments: `{"answer": "x"}`}}},
	}}
	env, _ := hotpotEnv(t, sc)
	res, tr := solve(t, newStrategy(t, "react", map[string]any{"protocol": "tools"}), env, hotpotRow(t, 0))
	if !tr.Finished || res.Output != "Answer: x" {
		t.Fatalf("trajectory did not finish: %+v", tr)
	}
	for _, req := range sc.reqs {
		for _, m := range req.Messages {
			if len(m.Content) > maxTurnText+100 && m.Role != "user" || len(m.Reasoning) > maxReasoning+100 {
				t.Errorf("%s message of %d bytes (reasoning %d) kept in the history", m.Role, len(m.Content), len(m.Reasoning))
			}
			for _, c := range m.ToolCalls {
				if len(c.Arguments) > maxArgs {
					t.Errorf("tool call arguments of %d bytes kept", len(c.Arguments))
				}
			}
		}
	}
	for _, st := range tr.Steps {
		if len(st.Thought) > maxThought+100 || len(st.Reply) > maxReply+100 {
			t.Errorf("step %d stores %d bytes of thought, %d of reply", st.Step, len(st.Thought), len(st.Reply))
		}
		for _, a := range st.Actions {
			if len(a.Observation) > maxObservation+100 || len(a.Call) > maxCallText+300 {
				t.Errorf("step %d stores %d bytes of observation, %d of call", st.Step, len(a.Observation), len(a.Call))
			}
		}
	}
	if n := len(tr.Steps[3].Actions); n != 12 || tr.Steps[3].Actions[maxCallsPerTurn].Observation != "Not run: at most 8 tool calls are run per turn." {
		t.Errorf("12 calls in one turn: %d actions, %+v", n, tr.Steps[3].Actions[min(n-1, maxCallsPerTurn)])
	}
	if obs := tr.Steps[2].Actions[0].Observation; !strings.Contains(obs, "longer than") {
		t.Errorf("huge arguments: %q", obs)
	}

	// The same garbage in the text and JSON protocols.
	for _, protocol := range []string{"text", "json"} {
		sc := text(huge, "{"+huge, `{"action": "`+huge+`"}`, "\x00\xff", "Action: Finish[x]", `{"action": "finish", "input": "x"}`)
		env, _ := hotpotEnv(t, sc)
		res, tr := solve(t, newStrategy(t, "react", map[string]any{"protocol": protocol}), env, hotpotRow(t, 0))
		if res.Output != "Answer: x" || tr.Invalid < 4 {
			t.Errorf("%s: output %q, %d invalid", protocol, res.Output, tr.Invalid)
		}
	}
}

func TestReActOnGame24(t *testing.T) {
	t.Parallel()
	sc := text(
		"Thought: 4 * 5 = 20.\nAction: Multiply[4, 5]",
		"Action: Add[20, 10]",
		"Action: Divide[7, 3]",
		"Action: Subtract[30]",
		"Action: Subtract[30, 6]",
		"Action: Finish[4 * 5 + 10 - 6]",
	)
	lib, _ := prompts.Bundled()
	env := Env{Sampler: sc, Task: game24.NewTask(), Prompts: lib, Seed: 1}
	res, tr := solve(t, newStrategy(t, "react", nil), env, puzzle(t, "4 5 6 10"))
	want := []string{
		"4 * 5 = 20 (left: 6 10 20)",
		"20 + 10 = 30 (left: 6 30)",
		"Error: 7 is not on the board [6 30].",
		`Invalid arguments for subtract: missing "b"`,
		"30 - 6 = 24 (left: 24)",
		"Episode finished.",
	}
	obs := observations(tr)
	for i := range want {
		if i >= len(obs) || !strings.HasPrefix(obs[i], want[i]) {
			t.Fatalf("observations %q, want %q", obs, want)
		}
	}
	if !res.Score.Correct || res.Output != "Answer: 4 * 5 + 10 - 6 = 24" || tr.Invalid != 2 {
		t.Errorf("output %q score %+v invalid %d", res.Output, res.Score, tr.Invalid)
	}
	if !strings.Contains(sc.reqs[0].Messages[0].Content, "Input: 4 5 6 10") {
		t.Error("prompt lacks the puzzle")
	}
	// The tools protocol offers the five tools with schemas from Go types.
	tc := &turns{replies: []llm.Choice{{ToolCalls: []llm.ToolCall{{ID: "1", Name: "finish", Arguments: `{"expression": "(10 - 6) * (5 + 4 - 3)"}`}}}}}
	env.Sampler = tc
	res, _ = solve(t, newStrategy(t, "react", map[string]any{"protocol": "tools"}), env, puzzle(t, "4 5 6 10"))
	var names []string
	for _, spec := range tc.reqs[0].Tools {
		names = append(names, spec.Name)
	}
	if strings.Join(names, " ") != "add subtract multiply divide finish" || res.Score.Correct {
		t.Errorf("tools %v, score %+v", names, res.Score)
	}
	if !strings.Contains(string(tc.reqs[0].Tools[0].Parameters), `"a":{"type":"string"`) {
		t.Errorf("add schema %s", tc.reqs[0].Tools[0].Parameters)
	}
}

// plainTask is a task with neither tools nor contexts.
type plainTask struct{ tasks.Task }

func (plainTask) Name() string { return "plain" }

func TestReActNeedsTools(t *testing.T) {
	t.Parallel()
	s := newStrategy(t, "react", nil)
	if err := s.(TaskChecker).CheckTask(plainTask{}); err == nil || !strings.Contains(err.Error(), "offers no tools") {
		t.Errorf("CheckTask = %v", err)
	}
	for _, task := range []tasks.Task{hotpotqa.NewTask(), game24.NewTask()} {
		if err := s.(TaskChecker).CheckTask(task); err != nil {
			t.Errorf("%s: %v", task.Name(), err)
		}
	}
	if _, err := param.Resolve(reactParams, map[string]any{"protocol": "yaml"}); err == nil {
		t.Error("protocol=yaml accepted")
	}
	if _, err := param.Resolve(reactParams, map[string]any{"protocol": "xml"}); err != nil {
		t.Errorf("protocol=xml refused: %v", err)
	}
	if _, err := param.Resolve(reactParams, map[string]any{"max_steps": "0"}); err == nil {
		t.Error("max_steps=0 accepted")
	}
}

func TestContextParameter(t *testing.T) {
	t.Parallel()
	in := hotpotRow(t, 0)
	q := in.Data.(hotpotqa.Question)
	goldText := strings.TrimSpace(q.Gold()[0].Text())
	var distractor string
	for _, p := range q.Context {
		if p.Title != q.Gold()[0].Title && p.Title != q.Gold()[1].Title {
			distractor = strings.TrimSpace(p.Text())
			break
		}
	}
	cases := []struct {
		strategy, context string
		gold, distractor  bool
	}{
		{"io", "", true, false},
		{"cot", "", true, false},
		{"cot", "gold", true, false},
		{"cot", "distractor", true, true},
		{"cot", "none", false, false},
		{"cotsc", "", true, false},
		{"cotsc", "none", false, false},
	}
	for _, c := range cases {
		sc := &scripted{outputs: []string{"Answer: x"}}
		env, _ := hotpotEnv(t, sc)
		s := newStrategy(t, c.strategy, map[string]any{"context": c.context, "k": 1})
		solve(t, s, env, in)
		prompt := sc.reqs[0].Messages[0].Content
		if strings.Contains(prompt, goldText) != c.gold || strings.Contains(prompt, distractor) != c.distractor {
			t.Errorf("%s context=%q: gold shown %v, distractor shown %v", c.strategy, c.context,
				strings.Contains(prompt, goldText), strings.Contains(prompt, distractor))
		}
		if strings.Contains(prompt, "Context:") == (c.context == "none") {
			t.Errorf("%s context=%q: Context block shown %v", c.strategy, c.context, !(c.context == "none"))
		}
	}
	// Tasks without contexts reject a context but run without one.
	for _, name := range []string{"io", "cot", "cotsc"} {
		s := newStrategy(t, name, map[string]any{"context": "gold"})
		if err := s.(TaskChecker).CheckTask(game24.NewTask()); err == nil {
			t.Errorf("%s: context=gold accepted for game24", name)
		}
		s = newStrategy(t, name, nil)
		if err := s.(TaskChecker).CheckTask(game24.NewTask()); err != nil {
			t.Errorf("%s: default context rejected for game24: %v", name, err)
		}
	}
	if _, err := param.Resolve(samplingParams, map[string]any{"context": "everything"}); err == nil {
		t.Error("context=everything accepted")
	}
}

func TestTaskMetricsReachResults(t *testing.T) {
	t.Parallel()
	in := hotpotRow(t, 0)
	outputs := []string{
		"Answer: " + gmbh,                  // em 1, f1 1
		"Answer: GmbH",                     // em 0, f1 0
		"Answer: Gesellschaft mit Haftung", // em 0, p 1, r 3/4: f1 6/7
		"no answer here\nat all",           // em 0, f1 0
	}
	for _, name := range []string{"io", "cot"} {
		env, _ := hotpotEnv(t, &scripted{outputs: outputs})
		res, _ := solve(t, newStrategy(t, name, map[string]any{"k": 4}), env, in)
		wantF1 := (1 + 6.0/7) / 4
		if res.Metrics["em"] != 0.25 || !near(res.Metrics["f1"], wantF1) || res.Accuracy != 0.25 || res.Metrics["best_of_k"] != 1 {
			t.Errorf("%s: metrics %v accuracy %v, want em 0.25 f1 %v", name, res.Metrics, res.Accuracy, wantF1)
		}
		d := res.Detail.(samplingDetail)
		if d.Samples[2].Metrics["f1"] != 6.0/7 {
			t.Errorf("%s: sample metrics %v", name, d.Samples[2].Metrics)
		}
	}
	// CoT-SC votes over normalised answers and reports the voted answer's
	// figures.
	votes := []string{"Answer: GmbH", "Thought: x\nAnswer: the gesellschaft MIT beschränkter haftung.", "Answer: " + gmbh, "garbage"}
	env, _ := hotpotEnv(t, &scripted{outputs: votes})
	res, _ := solve(t, newStrategy(t, "cotsc", map[string]any{"k": 4}), env, in)
	d := res.Detail.(reading.VotedDetail)
	if d.Vote.Key != "gesellschaft mit beschränkter haftung" || d.Vote.Winner != 1 || d.Vote.Abstain != 0 ||
		len(d.Vote.Counts) != 3 || d.Vote.Counts[0].Count != 2 { // a bare one-line output ("garbage") is an answer too
		t.Errorf("vote %+v", d.Vote)
	}
	if !res.Score.Correct || res.Metrics["em"] != 1 || res.Metrics["f1"] != 1 || res.Metrics["sample_accuracy"] != 0.5 {
		t.Errorf("cotsc: score %+v metrics %v", res.Score, res.Metrics)
	}
	// Game of 24 has no task metrics; nothing is added.
	env = testEnv(t, &scripted{outputs: []string{"Answer: 4 * 5 + 10 - 6 = 24"}})
	res, _ = solve(t, newStrategy(t, "io", nil), env, puzzle(t, "4 5 6 10"))
	if len(res.Metrics) != 1 {
		t.Errorf("game24 io metrics %v", res.Metrics)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }
