package strategies

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// reflexion is Reflexion (Shinn et al., 2023): an actor attempts the
// instance, an evaluator judges the attempt, and after a failed trial the
// model reflects on its trajectory (the short-term memory: the full
// Thought/Action/Observation or chain-of-thought text); the reflection joins
// the instance's reflections (the long-term memory), which the next trial's
// prompt shows. At most `trials` trials; an item stops at its first trial
// the evaluator accepts, so accuracy after trial t is cumulative (as in the
// paper's curves).
//
// Actors: cot (the task's chain of thought with reading context, e.g.
// HotpotQA with the gold paragraphs) or react (ReAct over the task's tools).
// Their templates are <task>/reflexion_cot and <task>/reflexion_react_<protocol>:
// the plain ones plus a memory section.
//
// Reflection strategies, as in the reference implementation:
//   - none: every trial has the same prompt;
//   - last_attempt: the previous trial's trajectory is shown, no reflection
//     is written;
//   - reflexion: the reflections (the most recent `memory`, 0 = all);
//   - last_attempt_and_reflexion: the previous trajectory and only the
//     latest reflection.
//
// Trajectories shown to the reflector or as the last attempt are truncated
// to reflect_tokens (about four characters a token) by shortening the
// longest observations first, as the reference does at 1600 tokens.
//
// Evaluators: oracle stops on the task's score against the gold answer, as
// the paper does for HotpotQA — it peeks, and says so (peeks_at_gold in the
// detail, evaluator=oracle in every parameter summary); self asks the model
// to judge its own answer (<task>/self_eval), so the loop runs without
// ground truth. Either way the accuracy reported is the task's true score of
// the answer the loop stands by after each trial.
//
// Long-term memory lives in Env.Memory (the store's reflections table,
// named per run); memory_from starts the first trial with the reflections
// another run stored on the same instance. After every completed trial the
// item's progress is checkpointed, so a resumed run continues with the next
// trial.
type reflexion struct {
	actor         string
	trials        int
	reflection    string
	memory        int
	evaluator     string
	memoryFrom    int64
	reflectTokens int
	temperature   *float64
	maxTokens     int
	context       string
	react         react
}

// Reflexion's reflection strategies and evaluators.
const (
	ReflectNone                    = "none"
	ReflectLastAttempt             = "last_attempt"
	ReflectReflexion               = "reflexion"
	ReflectLastAttemptAndReflexion = "last_attempt_and_reflexion"

	EvaluatorOracle = "oracle"
	EvaluatorSelf   = "self"

	ActorCoT   = "cot"
	ActorReAct = "react"
)

var reflexionParams = []param.Param{
	{Name: "actor", Kind: param.String, Default: ActorCoT, Allowed: []string{ActorCoT, ActorReAct}, Show: true,
		Doc: "who attempts each trial: cot (chain of thought with the task's context) or react (ReAct over the task's tools)"},
	{Name: "trials", Kind: param.Int, Default: 5, Min: param.Bound(1), Max: param.Bound(100), Doc: "trials at most per instance"},
	{Name: "reflection", Kind: param.String, Default: ReflectReflexion,
		Allowed: []string{ReflectNone, ReflectLastAttempt, ReflectReflexion, ReflectLastAttemptAndReflexion},
		Doc:     "what the next trial sees: none, last_attempt (previous trajectory), reflexion (reflections), last_attempt_and_reflexion (previous trajectory and the latest reflection)"},
	{Name: "memory", Kind: param.Int, Default: 0, Min: param.Bound(0), Max: param.Bound(1000),
		Doc: "reflections shown, the most recent (0: all, as the reference's HotpotQA runs; its AlfWorld runs keep 3)"},
	{Name: "evaluator", Kind: param.String, Default: EvaluatorOracle, Allowed: []string{EvaluatorOracle, EvaluatorSelf}, Show: true,
		Doc: "what stops the loop: oracle (the task's score against the gold answer, as the paper: it peeks) or self (the model judges its answer)"},
	{Name: "memory_from", Kind: param.Int, Default: 0, Min: param.Bound(0),
		Doc: "run id whose stored reflections on the same instance the first trial starts with, for the reflecting strategies (0: none)"},
	{Name: "reflect_tokens", Kind: param.Int, Default: 1600, Min: param.Bound(0), Max: param.Bound(1000000),
		Doc: "token budget of a trajectory shown to the reflector or as the last attempt, longest observations shortened first (0: no limit)"},
	temperatureParam("temperature", 0.0, "sampling temperature of every call (the reference used 0)"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit per call (0: server default)"},
	contextParam,
	{Name: "protocol", Kind: param.String, Default: ProtocolText, Allowed: []string{ProtocolText, ProtocolJSON, ProtocolTools, ProtocolXML, ProtocolAct, ProtocolReAct},
		Doc: "actor=react: how actions are written (text, json, tools, xml; on tasks with a simulated user, tau-*: tools, act, react or xml)"},
	{Name: "user", Kind: param.String, Default: "llm", Late: true,
		Doc: "actor=react on a task with a simulated user (tau-*): the simulated user's strategy (llm, react, verify, reflection)"},
	{Name: "max_steps", Kind: param.Int, Default: 6, Min: param.Bound(1), Max: param.Bound(100), Doc: "actor=react: model turns per trial (the reference used 6)"},
}

// reflexionTemplates are the templates reflexion renders (Spec.Templates).
func reflexionTemplates(v param.Values) []string {
	var out []string
	if v.String("actor") == ActorReAct {
		out = append(out, "reflexion_react_"+v.String("protocol"))
	} else {
		out = append(out, "reflexion_cot")
	}
	if v.String("evaluator") == EvaluatorSelf {
		out = append(out, "self_eval")
	}
	if r := v.String("reflection"); (r == ReflectReflexion || r == ReflectLastAttemptAndReflexion) && v.Int("trials") > 1 {
		out = append(out, "reflect")
	}
	return out
}

func newReflexion(v param.Values) (Strategy, error) {
	s := &reflexion{
		actor: v.String("actor"), trials: v.Int("trials"), reflection: v.String("reflection"), memory: v.Int("memory"),
		evaluator: v.String("evaluator"), memoryFrom: int64(v.Int("memory_from")), reflectTokens: v.Int("reflect_tokens"),
		temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"), context: v.String("context"),
	}
	s.react = react{protocol: v.String("protocol"), maxSteps: v.Int("max_steps"), temperature: s.temperature, maxTokens: s.maxTokens,
		template: "reflexion_react_" + v.String("protocol"), trials: 1, user: v.WithDefaults(reflexionParams).String("user")}
	return s, nil
}

// NeedsChat: the react actor's trials are conversations; the cot actor,
// the evaluator and the reflections send one user turn each.
func (s *reflexion) NeedsChat() string {
	if s.actor == ActorReAct {
		return "with actor=react each trial is a conversation of model turns and observations (actor=cot sends one user turn)"
	}
	return ""
}

// CheckTask rejects a react actor on a task without tools and a context the
// task does not offer.
// UseExternalTools: the react actor's tools take the run's.
func (s *reflexion) UseExternalTools() bool {
	if s.actor != ActorReAct {
		return false
	}
	return s.react.UseExternalTools()
}

func (s *reflexion) CheckTask(t tasks.Task) error {
	if s.actor == ActorReAct {
		return s.react.CheckTask(t)
	}
	return checkContext(t, s.context)
}

// writesReflections tells whether the strategy asks for reflections.
func (s *reflexion) writesReflections() bool {
	return s.reflection == ReflectReflexion || s.reflection == ReflectLastAttemptAndReflexion
}

// reflexionState is the checkpoint after each completed trial.
type reflexionState struct {
	Trials []reading.ReflexionTrial `json:"trials"`
}

// reflexionPromptData is what the reflexion actor templates see.
type reflexionPromptData struct {
	Input       string
	Context     string
	LastAttempt string   // the previous trial's trajectory, truncated ("" for none)
	Reflections []string // reflections shown, oldest first
}

// reflectPromptData is what the reflect and self_eval templates see.
type reflectPromptData struct {
	Input      string
	Context    string
	Actor      string // cot or react
	Trajectory string // truncated to reflect_tokens
	Answer     string // the answer extracted from the trial's output ("(none)" if none)
}

func (s *reflexion) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	env.Memory = env.memory() // one in-process memory for the item when there is no store
	mem := env.Memory
	var st reflexionState
	next := 0
	if env.Checkpoint != nil {
		n, ok, err := env.Checkpoint.Load(ctx, &st)
		if err != nil {
			return Result{}, err
		}
		switch {
		case !ok:
			st = reflexionState{}
		case n != len(st.Trials) || n > s.trials:
			return Result{}, fmt.Errorf("reflexion: checkpoint says trial %d is next but holds %d trials", n, len(st.Trials))
		default:
			next = n
		}
	}
	data, err := s.promptData(env, inst)
	if err != nil {
		return Result{}, err
	}
	var seeded []reading.Reflection
	if s.memoryFrom > 0 && s.writesReflections() {
		if seeded, err = mem.From(ctx, s.memoryFrom, inst.Key); err != nil {
			return Result{}, err
		}
	}
	own, err := mem.Reflections(ctx, inst.Key)
	if err != nil {
		return Result{}, err
	}
	reflections := append([]reading.Reflection(nil), seeded...)
	for _, r := range own {
		if r.Trial < next { // a reflection of a trial being redone is replaced
			reflections = append(reflections, r)
		}
	}
	for t := next; t < s.trials; t++ {
		if t > 0 && st.Trials[t-1].Judged {
			break
		}
		tr, err := s.trial(ctx, env, inst, data, t, st.Trials, reflections)
		if err != nil {
			return Result{}, err
		}
		st.Trials = append(st.Trials, tr)
		if env.Checkpoint != nil {
			if err := env.Checkpoint.Save(ctx, t+1, st); err != nil {
				return Result{}, err
			}
		}
		if tr.Reflection != "" {
			reflections = append(reflections, reading.Reflection{Trial: t, Text: tr.Reflection})
		}
	}
	return s.result(env, inst, st, seeded), nil
}

// promptData is the task's input and, for the cot actor, its context.
func (s *reflexion) promptData(env Env, inst tasks.Instance) (PromptData, error) {
	if s.actor == ActorReAct {
		return PromptData{Input: inst.Input}, nil
	}
	return promptData(env.Task, inst, s.context)
}

// shown returns what trial t's prompt carries of earlier trials.
func (s *reflexion) shown(t int, prev []reading.ReflexionTrial, reflections []reading.Reflection) (string, []string) {
	var last string
	if t > 0 && (s.reflection == ReflectLastAttempt || s.reflection == ReflectLastAttemptAndReflexion) {
		last = truncateTrajectory(prev[t-1].Trajectory, s.reflectTokens)
	}
	var keep int
	switch s.reflection {
	case ReflectReflexion:
		keep = s.memory
		if keep == 0 {
			keep = len(reflections)
		}
	case ReflectLastAttemptAndReflexion:
		keep = 1
	}
	from := max(0, len(reflections)-keep)
	var texts []string
	for _, r := range reflections[from:] {
		texts = append(texts, r.Text)
	}
	return last, texts
}

// trial runs trial t (0-based): the actor, the evaluator and, after a
// judged failure that leaves trials to go, the reflection (stored in the
// memory before the trial counts as complete).
func (s *reflexion) trial(ctx context.Context, env Env, inst tasks.Instance, data PromptData, t int,
	prev []reading.ReflexionTrial, reflections []reading.Reflection) (reading.ReflexionTrial, error) {
	last, shown := s.shown(t, prev, reflections)
	tracer := &stepCounter{Tracer: env.tracer()}
	tr := reading.ReflexionTrial{Trial: t + 1, ShownReflections: len(shown), ShownLastAttempt: last != ""}
	envTask, episodes := env.Task.(tasks.Environment)
	var sc tasks.Score
	switch {
	case s.actor == ActorReAct && episodes:
		// A trial is an episode (its own draws, identities t<trial>/...)
		// on a fresh copy of the environment; it succeeds with reward 1.
		r := s.react
		r.lastAttempt, r.reflections = last, shown
		ep, err := envTask.Episode(ctx, inst, t, tasks.User{Sampler: env.User, Prompts: env.Prompts, Strategy: r.user, Setup: r.userSetup})
		if err != nil {
			return tr, err
		}
		aenv := env
		aenv.Trace = tracer
		et, err := r.episode(ctx, aenv, ep, inst, t)
		if err != nil {
			return tr, err
		}
		tr.Trajectory = episodeTranscript(et)
		tr.Output = fmt.Sprintf("reward %g", et.Reward)
		sc = tasks.Score{Correct: successful(et.Reward), Answer: tr.Output, Metrics: map[string]float64{"reward": et.Reward}}
	case s.actor == ActorReAct:
		r := s.react
		r.lastAttempt, r.reflections = last, shown
		aenv := env
		aenv.Trace = tracer
		traj, err := r.run(ctx, aenv, inst, t)
		if err != nil {
			return tr, err
		}
		tr.Output = traj.Output
		tr.Trajectory = reactScratchpad(traj, env.Task.Score(inst, traj.Output).Answer)
		tr.ToolCalls = externalCalls(traj)
	default:
		prompt, err := render(env, "reflexion_cot", reflexionPromptData{Input: data.Input, Context: data.Context,
			LastAttempt: last, Reflections: shown})
		if err != nil {
			return tr, err
		}
		out, err := s.ask(ctx, env, prompt, ActorCoT, fmt.Sprintf("t%d/%s", t, ActorCoT))
		if err != nil {
			return tr, err
		}
		tr.Output = out
		tr.Trajectory = strings.TrimSpace(out)
		if err := tracer.Step(ctx, t, tracer.n, "answer", out); err != nil {
			return tr, err
		}
	}
	if !episodes || s.actor != ActorReAct {
		sc = env.Task.Score(inst, tr.Output)
	}
	tr.Answer, tr.Correct, tr.Metrics = sc.Answer, sc.Correct, sc.Metrics
	rd := reflectPromptData{Input: data.Input, Context: data.Context, Actor: s.actor,
		Trajectory: truncateTrajectory(tr.Trajectory, s.reflectTokens), Answer: sc.Answer}
	if rd.Answer == "" {
		rd.Answer = "(none)"
	}
	verdict := ""
	if s.evaluator == EvaluatorSelf {
		prompt, err := render(env, "self_eval", rd)
		if err != nil {
			return tr, err
		}
		if tr.Judgement, err = s.ask(ctx, env, prompt, "self_eval", fmt.Sprintf("t%d/self_eval", t)); err != nil {
			return tr, err
		}
		tr.Judged = ParseJudgement(tr.Judgement)
		verdict = fmt.Sprintf("self: judged %s (truly %s)\n%s", correctWord(tr.Judged), correctWord(tr.Correct), strings.TrimSpace(tr.Judgement))
	} else {
		tr.Judged = tr.Correct
		verdict = "oracle (gold answer): " + correctWord(tr.Correct)
		if sc.Reason != "" {
			verdict += ": " + sc.Reason
		}
	}
	if err := tracer.Step(ctx, t, tracer.n, "evaluation", verdict); err != nil {
		return tr, err
	}
	if tr.Judged || t+1 >= s.trials || !s.writesReflections() {
		return tr, nil
	}
	prompt, err := render(env, "reflect", rd)
	if err != nil {
		return tr, err
	}
	text, err := s.ask(ctx, env, prompt, "reflect", fmt.Sprintf("t%d/reflect", t))
	if err != nil {
		return tr, err
	}
	tr.Reflection = capText(strings.TrimSpace(text), maxReflection)
	if tr.Reflection == "" {
		return tr, tracer.Step(ctx, t, tracer.n, "reflection", "(empty: not kept)")
	}
	if err := env.Memory.Add(ctx, inst.Key, t, tr.Reflection); err != nil {
		return tr, err
	}
	return tr, tracer.Step(ctx, t, tracer.n, "reflection", tr.Reflection)
}

// maxReflection bounds a reflection as kept in memory, in bytes.
const maxReflection = 4000

func (s *reflexion) ask(ctx context.Context, env Env, prompt, purpose, call string) (string, error) {
	return askOne(ctx, env, prompt, purpose, call, s.temperature, s.maxTokens)
}

// result scores the answer the loop stands by and lays out the per-trial
// accuracy: after_trial_i is the truth of the answer standing after trial
// i (the last trial run, for items that stopped earlier); ran_trial_i says
// whether trial i ran.
func (s *reflexion) result(env Env, inst tasks.Instance, st reflexionState, seeded []reading.Reflection) Result {
	final := st.Trials[len(st.Trials)-1]
	m := map[string]float64{"trials": float64(len(st.Trials))}
	anyCorrect, agree := false, 0
	var calls []*events.ToolCall
	for _, tr := range st.Trials {
		for i := range tr.ToolCalls {
			calls = append(calls, &tr.ToolCalls[i].ToolCall)
		}
		anyCorrect = anyCorrect || tr.Correct
		if tr.Judged == tr.Correct {
			agree++
		}
	}
	for i := 1; i <= s.trials; i++ {
		k := min(i, len(st.Trials)) - 1
		m[fmt.Sprintf("after_trial_%d", i)] = boolFloat(st.Trials[k].Correct)
		m[fmt.Sprintf("ran_trial_%d", i)] = boolFloat(i <= len(st.Trials))
	}
	m["any_correct"] = boolFloat(anyCorrect)
	if env.Tools != nil && s.actor == ActorReAct {
		maps.Copy(m, toolMetrics(calls))
	}
	if s.evaluator == EvaluatorSelf {
		m["judge_accuracy"] = float64(agree) / float64(len(st.Trials))
	}
	sc := env.Task.Score(inst, final.Output)
	if _, episodes := env.Task.(tasks.Environment); episodes && s.actor == ActorReAct {
		// An episode is scored by its reward, which the trial kept.
		sc = tasks.Score{Correct: final.Correct, Answer: final.Answer, Metrics: final.Metrics}
	}
	return Result{
		Output: final.Output, Score: sc, Accuracy: boolFloat(sc.Correct), Metrics: mergeMetrics(m, sc.Metrics),
		Detail: reading.ReflexionDetail{Actor: s.actor, Reflection: s.reflection, Evaluator: s.evaluator,
			PeeksAtGold: s.evaluator == EvaluatorOracle, MemoryFrom: s.memoryFrom, Seeded: seeded, Trials: st.Trials},
	}
}

func correctWord(b bool) string {
	if b {
		return "correct"
	}
	return "incorrect"
}

// ParseJudgement reads a self-evaluation: the text after the last
// "Judgement:" (any case; else the whole reply) is a verdict of correct when
// it says correct, right or yes and not incorrect, wrong, not or no. A reply
// that says neither counts as incorrect, so the loop goes on.
func ParseJudgement(reply string) bool {
	lower := strings.ToLower(reply)
	if i := strings.LastIndex(lower, "judgement:"); i >= 0 {
		lower = lower[i+len("judgement:"):]
	} else if i := strings.LastIndex(lower, "judgment:"); i >= 0 {
		lower = lower[i+len("judgment:"):]
	}
	words := strings.FieldsFunc(lower, func(r rune) bool { return !('a' <= r && r <= 'z') })
	for _, w := range words {
		switch w {
		case "incorrect", "wrong", "not", "no", "false", "partially":
			return false
		case "correct", "right", "yes", "true":
			return true
		}
	}
	return false
}

// stepCounter passes trace steps on and counts them, so a strategy can
// append its own after an actor's.
type stepCounter struct {
	Tracer
	n int
}

func (c *stepCounter) Step(ctx context.Context, trial, step int, kind, content string) error {
	c.n = max(c.n, step+1)
	return c.Tracer.Step(ctx, trial, step, kind, content)
}

// reactScratchpad writes a ReAct trajectory as the reference's scratchpad:
// Thought, Action and Observation lines, observations on one line each.
func reactScratchpad(tr reading.ReActTrajectory, answer string) string {
	var b strings.Builder
	line := func(prefix, s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s != "" {
			b.WriteString(prefix + s + "\n")
		}
	}
	for _, st := range tr.Steps {
		line("Thought: ", st.Thought)
		if len(st.Actions) == 0 {
			line("Reply: ", st.Reply)
		}
		for _, a := range st.Actions {
			line("Action: ", a.Call)
			line("Observation: ", a.Observation)
		}
	}
	if !tr.Finished {
		b.WriteString("(The step limit was reached.)\n")
		if answer != "" {
			b.WriteString("Answer: " + answer + "\n")
		}
	}
	return strings.TrimSpace(b.String())
}

// approxTokens approximates a BPE token count: about four characters a
// token, and at least one a word.
func approxTokens(s string) int {
	return max(len(strings.Fields(s)), (len(s)+3)/4)
}

// truncatedObservation replaces an observation that did not fit.
const truncatedObservation = "[truncated excerpt]"

// truncateTrajectory shortens a trajectory to about budget tokens as the
// Reflexion reference does: observation lines, longest first, become
// "Observation: [truncated excerpt]" until the text fits or none is left.
// budget 0 keeps everything.
func truncateTrajectory(s string, budget int) string {
	if budget <= 0 || approxTokens(s) <= budget {
		return s
	}
	lines := strings.Split(s, "\n")
	var obs []int
	for i, l := range lines {
		if strings.HasPrefix(l, "Observation") {
			obs = append(obs, i)
		}
	}
	// Longest first; ties in order of appearance.
	for len(obs) > 0 && approxTokens(strings.Join(lines, "\n")) > budget {
		longest := 0
		for k, i := range obs {
			if approxTokens(lines[i]) > approxTokens(lines[obs[longest]]) {
				longest = k
			}
		}
		i := obs[longest]
		prefix, _, _ := strings.Cut(lines[i], ":")
		lines[i] = prefix + ": " + truncatedObservation
		obs = append(obs[:longest], obs[longest+1:]...)
	}
	return strings.Join(lines, "\n")
}
