package strategies

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/search"
	"github.com/reasonbench/reasonbench/strategies/action"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// lats is Language Agent Tree Search (Zhou et al., 2024) for tasks with
// tools: Monte Carlo tree search (search.MCTS) whose nodes are ReAct states.
// A node is the trajectory so far (thought, action, observation per step).
//
//   - Expansion samples n next steps in one request (the conversation of
//     the node's trajectory in ReAct's text protocol, template
//     <task>/lats_react), parses each with action.ParseText, drops repeats of
//     the same thought and action, and runs each action on the task's tools
//     (replaying the path's actions on a fresh tool set first, so Lookup
//     reads the right page).
//   - A non-terminal child is scored by the model's value: n_evaluate
//     judgements of <task>/lats_value ("Score: N/10") averaged, as a reward
//     in [0, 1]. The paper mixes this with a self-consistency score (how
//     often a step recurs among the samples, weight λ); the reference's
//     HotpotQA code has no such term and reads the first sampled reply as
//     N/10 (hotpot/hotpotqa.py value_outputs_unwrap), which with
//     n_evaluate = 1 (its setting) is what this does. Like the reference's
//     value prompt, ours shows the reflections on failed trajectories.
//   - A terminal child (Finish) is scored by the evaluator: oracle (the
//     task's score against the gold answer: 1 or 0, as the paper's HotpotQA
//     environment does — it peeks, and says so) or self (the model's own
//     judgement, <task>/self_eval).
//   - A terminal judged wrong is a failed trajectory: the model reflects on
//     it (<task>/reflect, Reflexion's prompt) and the reflection, kept in
//     Env.Memory, is shown in every later expansion's and value prompt, for
//     up to max_reflections distinct wrong answers (LATS: up to 3).
//   - The search stops at the first terminal judged correct; otherwise after
//     `iterations` rollouts, and the answer is the best-valued terminal.
//
// Where it differs from the reference code: its rollouts value every
// sampled child and return the mean of the values along the rollout (−1 at
// the depth limit); here a rollout's return is the last node's reward (a
// terminal's 1/0, else its value), as in search.MCTS. Rollouts sample
// n_generate steps like expansions (the reference samples 5 in rollouts
// whatever n is). The reference's selection skips terminal children and
// prunes fully-terminal subtrees; here terminal nodes stay selectable and
// back up their reward again.
type lats struct {
	react                         react
	iterations, nGenerate         int
	nEvaluate, maxDepth, maxRefl  int
	c                             float64
	evaluator, final              string
	temperature, valueTemperature *float64
}

var latsParams = []param.Param{
	{Name: "iterations", Kind: param.Int, Default: 50, Min: param.Bound(1), Max: param.Bound(10000), Show: true, Doc: "rollouts (MCTS iterations) per instance (LATS hotpot/run.py: 50)"},
	{Name: "n_generate", Kind: param.Int, Default: 5, Min: param.Bound(1), Max: param.Bound(100), Show: true, Doc: "next steps sampled per expansion (LATS: n=5)"},
	{Name: "n_evaluate", Kind: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(100), Doc: "value judgements per state, averaged (self-consistency)"},
	{Name: "max_depth", Kind: param.Int, Default: 7, Min: param.Bound(1), Max: param.Bound(100), Doc: "steps in a trajectory at most (LATS: 7)"},
	{Name: "c", Kind: param.Float, Default: 1.4142135623730951, Min: param.Bound(0), Max: param.Bound(100), Doc: "UCT exploration constant (LATS's sqrt(2·ln N/n) is c = √2)"},
	{Name: "evaluator", Kind: param.String, Default: EvaluatorOracle, Allowed: []string{EvaluatorOracle, EvaluatorSelf}, Show: true,
		Doc: "scores a Finish: oracle peeks at the gold answer (as the paper), self asks the model"},
	{Name: "max_reflections", Kind: param.Int, Default: 3, Min: param.Bound(0), Max: param.Bound(100), Doc: "reflections written on distinct failed answers at most (0: none)"},
	{Name: "final", Kind: param.String, Default: search.FinalBestValue, Allowed: []string{search.FinalBestValue, search.FinalMostVisited}, Doc: "the answer when none is judged correct: the best-valued Finish, or the most visited path"},
	temperatureParam("temperature", 1.0, "sampling temperature of expansions (LATS: 1.0)"),
	temperatureParam("value_temperature", 1.0, "sampling temperature of value, self-evaluation and reflection calls"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit per call (0: server default)"},
}

func newLATS(v param.Values) (Strategy, error) {
	return &lats{
		react:      react{protocol: ProtocolText, maxSteps: v.Int("max_depth"), temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens")},
		iterations: v.Int("iterations"), nGenerate: v.Int("n_generate"), nEvaluate: v.Int("n_evaluate"),
		maxDepth: v.Int("max_depth"), maxRefl: v.Int("max_reflections"), c: v.Float("c"),
		evaluator: v.String("evaluator"), final: v.String("final"),
		temperature: v.Temperature("temperature"), valueTemperature: v.Temperature("value_temperature"),
	}, nil
}

// CheckTask rejects tasks without tools.
func (s *lats) CheckTask(t tasks.Task) error { return s.react.CheckTask(t) }

// UseExternalTools: the run's tools join the task's.
func (s *lats) UseExternalTools() bool { return s.react.UseExternalTools() }

// latsTools is a fresh tool set of a trajectory: the task's and the run's.
type latsTools func(inst tasks.Instance) ([]tasks.Tool, error)

// NeedsChat: LATS expands ReAct trajectories, which are conversations.
func (s *lats) NeedsChat() string { return "it expands ReAct trajectories, " + s.react.NeedsChat() }

// LATSStep is one step of a LATS trajectory.
type LATSStep struct {
	Thought     string `json:"thought,omitempty"`
	Action      string `json:"action,omitempty"` // as written: Search[Paris]
	Observation string `json:"observation"`
	Invalid     bool   `json:"invalid,omitempty"`
	// ToolCall is the record of a call to a tool of the run's (--mcp).
	ToolCall *events.ToolCall `json:"tool_call,omitempty"`
}

// LATSState is a node of the search: the trajectory from the question.
type LATSState struct {
	Steps    []LATSStep `json:"steps"`
	Finished bool       `json:"finished,omitempty"` // the final tool ended it
	Output   string     `json:"output,omitempty"`
}

// scratchpad writes the trajectory as numbered Thought/Action/Observation
// lines (what value and reflection prompts show).
func (st LATSState) scratchpad() string {
	var b strings.Builder
	for i, s := range st.Steps {
		line := func(label, text string) {
			if text = strings.Join(strings.Fields(text), " "); text != "" {
				fmt.Fprintf(&b, "%s %d: %s\n", label, i+1, text)
			}
		}
		line("Thought", s.Thought)
		line("Action", s.Action)
		line("Observation", s.Observation)
	}
	return strings.TrimSpace(b.String())
}

// latsCheckpoint is an item's search after a completed iteration.
type latsCheckpoint struct {
	Search      search.MCTSState[LATSState] `json:"search"`
	Reflections []string                    `json:"reflections"`
	Failed      []string                    `json:"failed"` // normalised wrong answers reflected on
	Judged      map[int]bool                `json:"judged"` // terminal node → judged correct
}

// LATSDetail is what a lats item stores.
type LATSDetail struct {
	Evaluator   string   `json:"evaluator"`
	PeeksAtGold bool     `json:"peeks_at_gold"`
	Iterations  int      `json:"iterations"`
	Nodes       int      `json:"nodes"`
	Found       bool     `json:"found"` // stopped at a Finish judged correct
	Best        int      `json:"best"`
	Terminals   int      `json:"terminals"`
	Reflections []string `json:"reflections,omitempty"`
	Trajectory  string   `json:"trajectory"` // the best node's
	// ToolCalls are the calls to the run's tools (--mcp) the search made,
	// by node in the tree's order, with the node's depth as the step.
	ToolCalls []reading.StepToolCall `json:"tool_calls,omitempty"`
}

type latsValueData struct {
	Input       string
	Trajectory  string
	Reflections []string
}

var scoreLine = regexp.MustCompile(`(?i)score\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(?:/\s*10)?`)

// ParseLATSScore reads the last "Score: N/10" of a value reply as N/10,
// clamped to [0, 1]; ok is false when there is none.
func ParseLATSScore(reply string) (float64, bool) {
	m := scoreLine.FindAllStringSubmatch(clip(reply, action.MaxParse), -1)
	if len(m) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	if err != nil {
		return 0, false
	}
	return min(max(v/10, 0), 1), true
}

func hasTemplate(env Env, name string) bool {
	_, ok := env.Prompts.Text(name)
	return ok
}

func (s *lats) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	env.Memory = env.memory()
	taskTools, ok := env.Task.(tasks.Toolbox)
	if !ok && env.Tools == nil {
		return Result{}, s.CheckTask(env.Task)
	}
	tb := latsTools(func(inst tasks.Instance) ([]tasks.Tool, error) {
		var tools []tasks.Tool
		if taskTools != nil {
			var err error
			if tools, err = taskTools.Tools(inst); err != nil {
				return nil, err
			}
		}
		return withExternal(env, tools), nil
	})
	react := "lats_react"
	if agentOnly(env) {
		react = "agent_text"
	}
	for _, name := range []string{react, "lats_value", "reflect", "self_eval"} {
		if full := tasks.TemplateName(env.Prompts, env.Task, name); !hasTemplate(env, full) {
			return Result{}, fmt.Errorf("lats: task %s has no template %s.txt (add it to prompts/ or a --prompts folder)",
				env.Task.Name(), full)
		}
	}
	probe, err := tb(inst)
	if err != nil {
		return Result{}, err
	}
	docs := make([]reactToolDoc, len(probe))
	for i, t := range probe {
		docs[i] = toolDoc(t)
	}

	var mu sync.Mutex
	cp := latsCheckpoint{Judged: map[int]bool{}}
	var resumeSt *search.MCTSState[LATSState]
	if env.Checkpoint != nil {
		var saved latsCheckpoint
		n, ok, err := env.Checkpoint.Load(ctx, &saved)
		if err != nil {
			return Result{}, err
		}
		if ok {
			if n != saved.Search.Done || saved.Search.Tree.Len() == 0 {
				return Result{}, fmt.Errorf("lats: checkpoint says iteration %d is next but holds %d", n, saved.Search.Done)
			}
			cp = saved
			if cp.Judged == nil {
				cp.Judged = map[int]bool{}
			}
			resumeSt = &cp.Search
		}
	}
	// Reflections stored by this item beyond the checkpoint (written by an
	// iteration that did not complete) are replaced as they are rewritten.
	reflections := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), cp.Reflections...)
	}

	// judgedState holds the evaluator's verdict on finished trajectories,
	// for Solved.
	judgedState := map[string]bool{}
	prob := search.Problem[LATSState]{
		Expand: func(ctx context.Context, st LATSState, depth int) ([]LATSState, error) {
			return s.expand(ctx, env, tb, inst, docs, st, reflections())
		},
		Evaluate: func(ctx context.Context, _ []LATSState, cands []LATSState, depth int) ([]float64, error) {
			out := make([]float64, len(cands))
			site := search.Site(ctx)
			for i, c := range cands {
				call := fmt.Sprintf("%s/c%d", site, i)
				if !c.Finished && depth >= s.maxDepth {
					continue // out of steps without an answer: a failure, worth 0
				}
				if !c.Finished {
					v, err := s.value(ctx, env, inst, c, reflections(), call)
					if err != nil {
						return nil, err
					}
					out[i] = v
					continue
				}
				judged, err := s.judge(ctx, env, inst, c, call)
				if err != nil {
					return nil, err
				}
				mu.Lock()
				judgedState[c.Output+"\x00"+c.scratchpad()] = judged
				mu.Unlock()
				if judged {
					out[i] = 1
					continue
				}
				if err := s.reflect(ctx, env, inst, c, &mu, &cp, call); err != nil {
					return nil, err
				}
			}
			return out, nil
		},
		IsTerminal: func(st LATSState, depth int) bool { return st.Finished || depth >= s.maxDepth },
		Solved: func(st LATSState) bool {
			mu.Lock()
			defer mu.Unlock()
			return st.Finished && judgedState[st.Output+"\x00"+st.scratchpad()]
		},
	}
	o := search.MCTSOptions{Iterations: s.iterations, C: s.c, MaxDepth: s.maxDepth, Final: s.final,
		Backup: search.BackupMean, Rollout: search.RolloutGreedy, Seed: itemSeed(env.Seed, inst.Index)}
	after := func(ctx context.Context, st *search.MCTSState[LATSState]) error {
		if env.Checkpoint == nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		cp.Search = *st
		return env.Checkpoint.Save(ctx, st.Done, cp)
	}
	var res search.Result[LATSState]
	if resumeSt != nil {
		// Judgements of terminals already in the tree come from the
		// checkpoint: Solved must see them after a resume.
		for id, j := range cp.Judged {
			if n := resumeSt.Tree.Node(id); n != nil {
				judgedState[n.State.Output+"\x00"+n.State.scratchpad()] = j
			}
		}
		st := *resumeSt
		res, err = search.ResumeMCTS(ctx, prob, &st, o, s.recordJudged(after, &mu, &cp, judgedState))
	} else {
		res, err = search.MCTS(ctx, prob, LATSState{Steps: []LATSStep{}}, o, s.recordJudged(after, &mu, &cp, judgedState))
	}
	if err != nil {
		return Result{}, err
	}
	return s.result(ctx, env, inst, res, cp.Reflections)
}

// recordJudged keeps the terminals' judgements by node ID in the
// checkpoint before saving it.
func (s *lats) recordJudged(after func(context.Context, *search.MCTSState[LATSState]) error, mu *sync.Mutex,
	cp *latsCheckpoint, judged map[string]bool) func(context.Context, *search.MCTSState[LATSState]) error {
	return func(ctx context.Context, st *search.MCTSState[LATSState]) error {
		mu.Lock()
		for _, n := range st.Tree.Nodes {
			if n.State.Finished {
				if j, ok := judged[n.State.Output+"\x00"+n.State.scratchpad()]; ok {
					cp.Judged[n.ID] = j
				}
			}
		}
		mu.Unlock()
		return after(ctx, st)
	}
}

// expand samples n next steps from st and runs their actions.
func (s *lats) expand(ctx context.Context, env Env, tb latsTools, inst tasks.Instance, docs []reactToolDoc,
	st LATSState, reflections []string) ([]LATSState, error) {
	name := "lats_react"
	if agentOnly(env) {
		name = "agent_text"
	}
	prompt, err := render(env, name, reactPromptData{Input: inst.Input, MaxSteps: s.maxDepth, Tools: docs, Reflections: reflections})
	if err != nil {
		return nil, err
	}
	msgs := userPrompt(prompt)
	for _, step := range st.Steps {
		msgs = append(msgs, llm.Message{Role: "assistant", Content: "Thought: " + step.Thought + "\nAction: " + step.Action},
			llm.Message{Role: "user", Content: "Observation: " + step.Observation})
	}
	if len(st.Steps)+1 >= s.maxDepth {
		msgs = withNotice(msgs, ProtocolText, "This is the last step: give your final answer now with Finish[answer].")
	}
	resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: msgs, N: s.nGenerate, Temperature: s.temperature,
		MaxTokens: s.react.maxTokens, Stop: []string{"\nObservation"}, Purpose: "lats_expand",
		Call: search.Site(ctx) + "/lats_expand"})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []LATSState
	for _, ch := range resp.Choices {
		act, perr := action.ParseText(ch.Content)
		key := strings.TrimSpace(act.Thought) + "::" + actionText(act)
		if seen[key] {
			continue
		}
		seen[key] = true
		child, err := s.act(ctx, tb, inst, st, act, perr, ch.Content)
		if err != nil {
			return nil, err
		}
		out = append(out, child)
	}
	return out, nil
}

// act runs one sampled step on a fresh tool set that has replayed st's
// actions, and returns the child state.
func (s *lats) act(ctx context.Context, tb latsTools, inst tasks.Instance, st LATSState, act action.Action, perr error, reply string) (LATSState, error) {
	tools, err := tb(inst)
	if err != nil {
		return LATSState{}, err
	}
	a := &agent{s: &s.react, tools: tools}
	run := func(act action.Action) (tasks.ToolResult, string, bool, error) {
		tool, ok := a.lookup(act.Name)
		if !ok {
			return tasks.ToolResult{}, a.invalidObservation(fmt.Errorf("unknown action %q", clip(act.Name, 80))), true, nil
		}
		res, err := tool.Call(ctx, actionArgs(tool, act))
		return res, capText(res.Observation, maxObservation), res.Refused, err
	}
	for _, prev := range st.Steps {
		if prev.Invalid || prev.Action == "" {
			continue
		}
		pa, err := action.ParseText("Action: " + prev.Action)
		if err != nil || prev.ToolCall != nil {
			continue // the run's tools are not replayed: their state is the server's
		}
		if _, _, _, err := run(pa); err != nil {
			return LATSState{}, err
		}
	}
	child := LATSState{Steps: append(append([]LATSStep(nil), st.Steps...), LATSStep{Thought: capText(strings.TrimSpace(act.Thought), maxThought)})}
	last := &child.Steps[len(child.Steps)-1]
	if perr != nil {
		if strings.TrimSpace(reply) == "" {
			perr = fmt.Errorf("the reply was empty")
		}
		last.Observation, last.Invalid = a.invalidObservation(perr), true
		return child, nil
	}
	last.Action = actionText(act)
	res, obs, invalid, err := run(act)
	if err != nil {
		return LATSState{}, err
	}
	last.Observation, last.Invalid, last.ToolCall = obs, invalid, res.Call
	if res.Final {
		child.Finished, child.Output = true, res.Output
	}
	return child, nil
}

// value is the mean of n_evaluate sampled scores of a non-terminal state.
func (s *lats) value(ctx context.Context, env Env, inst tasks.Instance, st LATSState, reflections []string, call string) (float64, error) {
	prompt, err := render(env, "lats_value", latsValueData{Input: inst.Input, Trajectory: st.scratchpad(), Reflections: reflections})
	if err != nil {
		return 0, err
	}
	resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), N: s.nEvaluate, Temperature: s.valueTemperature,
		MaxTokens: s.react.maxTokens, Purpose: "value", Call: call + "/value"})
	if err != nil {
		return 0, err
	}
	if len(resp.Choices) == 0 {
		return 0, errNoChoices("value")
	}
	total := 0.0
	for _, c := range resp.Choices {
		v, _ := ParseLATSScore(c.Content) // an unreadable judgement counts 0
		total += v
	}
	return total / float64(len(resp.Choices)), nil
}

// judge scores a finished trajectory with the evaluator.
func (s *lats) judge(ctx context.Context, env Env, inst tasks.Instance, st LATSState, call string) (bool, error) {
	sc := env.Task.Score(inst, st.Output)
	if s.evaluator == EvaluatorOracle {
		return sc.Correct, nil
	}
	ans := sc.Answer
	if ans == "" {
		ans = "(none)"
	}
	prompt, err := render(env, "self_eval", reflectPromptData{Input: inst.Input, Actor: ActorReAct, Trajectory: st.scratchpad(), Answer: ans})
	if err != nil {
		return false, err
	}
	reply, err := askOne(ctx, env, prompt, "self_eval", call+"/self_eval", s.valueTemperature, s.react.maxTokens)
	if err != nil {
		return false, err
	}
	return ParseJudgement(reply), nil
}

// reflect writes a reflection on a failed trajectory whose answer was not
// reflected on before, while fewer than max_reflections exist.
func (s *lats) reflect(ctx context.Context, env Env, inst tasks.Instance, st LATSState, mu *sync.Mutex, cp *latsCheckpoint, call string) error {
	sc := env.Task.Score(inst, st.Output)
	key := strings.ToLower(strings.Join(strings.Fields(sc.Answer), " "))
	mu.Lock()
	n := len(cp.Reflections)
	dup := false
	for _, f := range cp.Failed {
		dup = dup || f == key
	}
	mu.Unlock()
	if dup || n >= s.maxRefl {
		return nil
	}
	ans := sc.Answer
	if ans == "" {
		ans = "(none)"
	}
	prompt, err := render(env, "reflect", reflectPromptData{Input: inst.Input, Actor: ActorReAct, Trajectory: st.scratchpad(), Answer: ans})
	if err != nil {
		return err
	}
	text, err := askOne(ctx, env, prompt, "reflect", call+"/reflect", s.valueTemperature, s.react.maxTokens)
	if err != nil {
		return err
	}
	text = capText(strings.TrimSpace(text), maxReflection)
	mu.Lock()
	cp.Failed = append(cp.Failed, key)
	mu.Unlock()
	if text == "" {
		return nil
	}
	if err := env.Memory.Add(ctx, inst.Key, n, text); err != nil {
		return err
	}
	mu.Lock()
	cp.Reflections = append(cp.Reflections, text)
	mu.Unlock()
	return nil
}

func (s *lats) result(ctx context.Context, env Env, inst tasks.Instance, res search.Result[LATSState], reflections []string) (Result, error) {
	if err := env.tracer().Tree(ctx, latsTreeNodes(res.Tree)); err != nil {
		return Result{}, err
	}
	d := LATSDetail{Evaluator: s.evaluator, PeeksAtGold: s.evaluator == EvaluatorOracle, Iterations: res.Steps,
		Nodes: res.Tree.Len(), Found: res.Found, Best: res.Best, Terminals: len(res.Final), Reflections: reflections}
	out := ""
	anyOK := false
	for _, id := range res.Final {
		if n := res.Tree.Nodes[id]; n.State.Finished && env.Task.Score(inst, n.State.Output).Correct {
			anyOK = true
		}
	}
	if n := res.Tree.Node(res.Best); n != nil {
		out = n.State.Output
		d.Trajectory = n.State.scratchpad()
	}
	tr := &stepCounter{Tracer: env.tracer()}
	if n := res.Tree.Node(res.Best); n != nil {
		for _, st := range n.State.Steps {
			call := ""
			if st.ToolCall != nil {
				call = ToolCallLine(*st.ToolCall)
			}
			for _, kv := range [][2]string{{"thought", st.Thought}, {"action", st.Action}, {"observation", st.Observation}, {"tool_call", call}} {
				if kv[1] != "" {
					if err := tr.Step(ctx, 0, tr.n, kv[0], kv[1]); err != nil {
						return Result{}, err
					}
				}
			}
		}
	}
	for _, r := range reflections {
		if err := tr.Step(ctx, 0, tr.n, "reflection", r); err != nil {
			return Result{}, err
		}
	}
	if out != "" {
		if err := tr.Step(ctx, 0, tr.n, "answer", out); err != nil {
			return Result{}, err
		}
	}
	sc := env.Task.Score(inst, out)
	m := map[string]float64{"any_correct": boolFloat(anyOK), "iterations": float64(res.Steps), "nodes": float64(res.Tree.Len()),
		"reflections": float64(len(reflections))}
	if env.Tools != nil {
		// A node's last step is its own; the steps before it are its
		// parent's.
		var calls []*events.ToolCall
		for _, n := range res.Tree.Nodes {
			if k := len(n.State.Steps); k > 0 && n.State.Steps[k-1].ToolCall != nil {
				c := n.State.Steps[k-1].ToolCall
				calls = append(calls, c)
				d.ToolCalls = append(d.ToolCalls, reading.StepToolCall{Step: k, ToolCall: *c})
			}
		}
		maps.Copy(m, toolMetrics(calls))
	}
	return Result{Output: out, Score: sc, Accuracy: boolFloat(sc.Correct), Metrics: mergeMetrics(m, sc.Metrics), Detail: d}, nil
}

// latsTreeNodes traces the tree: a node's thought is its last step.
func latsTreeNodes(tr search.Tree[LATSState]) []TreeNode {
	out := make([]TreeNode, len(tr.Nodes))
	for i, n := range tr.Nodes {
		text := ""
		if k := len(n.State.Steps); k > 0 {
			st := n.State.Steps[k-1]
			text = strings.TrimSpace(st.Thought + "\n" + st.Action + " → " + clip(strings.Join(strings.Fields(st.Observation), " "), 200))
		}
		out[i] = TreeNode{ID: n.ID, Parent: n.Parent, Depth: n.Depth, Thought: text, Value: n.Value,
			Selected: n.Selected, Terminal: n.Terminal, Visits: n.Visits}
	}
	return out
}
