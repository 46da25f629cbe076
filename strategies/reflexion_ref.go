package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/tokens"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// reflexionRef is the Reflexion reference implementation's HotpotQA agents
// (noahshinn/reflexion, hotpotqa_runs/agents.py), call for call, so that a
// run sends the prompts the reference sent:
//
//   - one growing scratchpad per trial; every call is the whole agent
//     prompt (examples, reflections, context, question, scratchpad) as one
//     user turn with stop "\n";
//   - agent=cot makes two calls per trial, after "\nThought:" and after
//     "\nAction:", and expects Finish[answer]; the observation is
//     "Answer is CORRECT" or "Answer is INCORRECT" (the oracle: the agent
//     peeks at the gold answer, as the reference does);
//   - agent=react loops "Thought n:", "Action n:", "Observation n: " with
//     Search/Lookup/Finish until Finish, step n > max_steps, or the prompt
//     is longer than prompt_tokens;
//   - the base runs (reflection=none) use the reference's plain agent
//     prompts (the notebooks pick cot_agent_prompt / react_agent_prompt
//     for NONE), the others its reflect-agent prompts;
//   - before every trial after the first (only items not yet correct run
//     one) the reflection strategy rewrites the reflections text: none,
//     last_attempt (the previous scratchpad under the last-trial header),
//     reflexion (a new reflection appended to the list, under the
//     reflection header), last_attempt_and_reflexion (both, only the
//     newest reflection, under the after-last-trial header);
//   - the answer persists across trials until a new Finish replaces it, and
//     correctness is the task's exact match (SQuAD normalisation, as the
//     reference's EM).
//
// Token counts (scratchpad truncation at reflect_tokens, the prompt_tokens
// halt) are p50k_base's, the encoding the reference counts with
// (tiktoken.encoding_for_model("text-davinci-003")) whatever the model.
//
// Differences, all deliberate: ReAct searches the task's local docstore,
// not the Wikipedia API; an Action the reference's regex cannot
// parse crashed the reference (a None unpacked), here it is an invalid
// action; the agent code's own observation strings (search failures,
// invalid action, the truncation marker) are our wording, in templates.
type reflexionRef struct {
	agent, context, reflection           string
	trials, maxSteps, reflectTokens      int
	promptTokens, maxTokens, reflectMaxT int
	temperature                          *float64
	tokens                               func(string) int // p50k_base counts
}

// refEncoding is the tokenizer the reference counts with.
const refEncoding = "p50k_base"

// Reference agents.
const (
	RefAgentCoT   = "cot"
	RefAgentReAct = "react"
)

var reflexionRefParams = []param.Param{
	{Name: "agent", Kind: param.String, Default: RefAgentCoT, Allowed: []string{RefAgentCoT, RefAgentReAct}, Show: true,
		Doc: "the reference's agent: cot (Thought, then Finish) or react (Thought/Action/Observation over the docstore)"},
	{Name: "context", Kind: param.String, Default: "gold", Allowed: []string{"gold", "none"}, Show: true,
		Doc: "agent=cot: gold (the reference's CoT/context runs: every supporting fact's paragraph, text only, in fact order, as its notebooks build it) or none (CoT/no_context, its \"simple\" prompts)"},
	{Name: "trials", Kind: param.Int, Default: 5, Min: param.Bound(1), Max: param.Bound(100), Doc: "trials at most per question"},
	{Name: "reflection", Kind: param.String, Default: ReflectReflexion,
		Allowed: []string{ReflectNone, ReflectLastAttempt, ReflectReflexion, ReflectLastAttemptAndReflexion}, Show: true,
		Doc: "the reference's strategies: none (base), last_attempt (last_trial), reflexion, last_attempt_and_reflexion"},
	{Name: "max_steps", Kind: param.Int, Default: 6, Min: param.Bound(1), Max: param.Bound(100), Doc: "agent=react: steps per trial (the reference: 6)"},
	{Name: "reflect_tokens", Kind: param.Int, Default: 1600, Min: param.Bound(1), Max: param.Bound(1000000),
		Doc: "scratchpad truncation for the last-trial text and the ReAct reflection prompt (the reference: 1600 tokens)"},
	{Name: "prompt_tokens", Kind: param.Int, Default: 3896, Min: param.Bound(1), Max: param.Bound(10000000),
		Doc: "agent=react: a trial halts when its prompt is longer (the reference: 3896 tokens)"},
	temperatureParam("temperature", 0.0, "sampling temperature (the reference: 0)"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0),
		Doc: "completion limit of an agent call (0: the reference's, 250 for cot and 100 for react)"},
	{Name: "reflect_max_tokens", Kind: param.Int, Default: 250, Min: param.Bound(1), Doc: "completion limit of a reflection call (the reference: 250)"},
}

// reflexionRefTemplates are the templates reflexion_ref renders (Spec.Templates).
func reflexionRefTemplates(v param.Values) []string {
	s := &reflexionRef{agent: v.String("agent"), context: v.String("context"), reflection: v.String("reflection")}
	t := s.templates()
	out := []string{t.agent, t.examples, "ref_correct", "ref_incorrect"}
	if t.reflect != "" {
		out = append(out, t.reflect, t.reflectExamples)
	}
	if s.agent == RefAgentReAct {
		out = append(out, "ref_react_invalid")
	}
	// ref_truncated is optional: without it the marker is "[truncated]".
	switch s.reflection {
	case ReflectLastAttempt:
		out = append(out, "ref_last_trial_header")
	case ReflectReflexion:
		out = append(out, "ref_reflection_header")
	case ReflectLastAttemptAndReflexion:
		out = append(out, "ref_last_trial_header", "ref_reflection_after_last_trial_header")
	}
	return out
}

func newReflexionRef(v param.Values) (Strategy, error) {
	s := &reflexionRef{agent: v.String("agent"), context: v.String("context"), reflection: v.String("reflection"),
		trials: v.Int("trials"), maxSteps: v.Int("max_steps"), reflectTokens: v.Int("reflect_tokens"),
		promptTokens: v.Int("prompt_tokens"), maxTokens: v.Int("max_tokens"), reflectMaxT: v.Int("reflect_max_tokens"),
		temperature: v.Temperature("temperature")}
	counter, err := tokens.Encoding(refEncoding)
	if err != nil {
		return nil, err
	}
	s.tokens = counter.Text
	if s.maxTokens == 0 {
		s.maxTokens = 250
		if s.agent == RefAgentReAct {
			s.maxTokens = 100
		}
	}
	return s, nil
}

// CheckTask needs the reference templates, and tools for react.
func (s *reflexionRef) CheckTask(t tasks.Task) error {
	if s.agent == RefAgentReAct {
		if _, ok := t.(tasks.Toolbox); !ok {
			return fmt.Errorf("reflexion_ref agent=react needs a task with tools (hotpotqa), not %s", t.Name())
		}
		return nil
	}
	if s.context == "gold" {
		return checkContext(t, refContextMode)
	}
	return nil
}

// refContextMode is the task context the reference's CoT/context runs
// show: HotpotQA's "supporting" (every supporting fact's paragraph, text
// only, in fact order, a blank line between), not the titled, deduplicated
// "gold" the harness's own prompts use.
const refContextMode = "supporting"

// The reference's templates, per agent (names under the task's folder).
type refTemplates struct {
	agent, examples, reflect, reflectExamples string
}

func (s *reflexionRef) templates() refTemplates {
	switch {
	case s.agent == RefAgentCoT && s.reflection == ReflectNone && s.context == "none":
		return refTemplates{agent: "ref_cot_simple_base_agent", examples: "ref_cot_simple_examples"}
	case s.agent == RefAgentCoT && s.reflection == ReflectNone:
		return refTemplates{agent: "ref_cot_base_agent", examples: "ref_cot_examples"}
	case s.agent == RefAgentReAct && s.reflection == ReflectNone:
		return refTemplates{agent: "ref_react_agent", examples: "ref_react_examples"}
	case s.agent == RefAgentReAct:
		return refTemplates{"ref_react_reflect_agent", "ref_react_examples", "ref_react_reflect", "ref_react_reflect_examples"}
	case s.context == "none":
		return refTemplates{"ref_cot_simple_agent", "ref_cot_simple_examples", "ref_cot_simple_reflect", "ref_cot_simple_reflect_examples"}
	default:
		return refTemplates{"ref_cot_agent", "ref_cot_examples", "ref_cot_reflect", "ref_cot_reflect_examples"}
	}
}

// RefPromptData is what the reference templates see: the .format fields of
// the reference's PromptTemplates.
type RefPromptData struct {
	Examples    string
	Reflections string
	Context     string
	Question    string
	Scratchpad  string
}

// RefTrial is one trial of a reference agent.
type RefTrial struct {
	Trial       int    `json:"trial"` // 1-based
	Reflections string `json:"reflections"`
	Reflection  string `json:"reflection,omitempty"` // written before this trial
	Scratchpad  string `json:"scratchpad"`
	Answer      string `json:"answer"` // standing after the trial (persists, as in the reference)
	Correct     bool   `json:"correct"`
	Finished    bool   `json:"finished"`
	Steps       int    `json:"steps,omitempty"` // react
}

// RefDetail is what a reflexion_ref item stores.
type RefDetail struct {
	Agent       string     `json:"agent"`
	Reflection  string     `json:"reflection"`
	PeeksAtGold bool       `json:"peeks_at_gold"`
	Trials      []RefTrial `json:"trials"`
}

// refState is the agent's state between trials, checkpointed after each.
type refState struct {
	Trials         []RefTrial `json:"trials"`
	Reflections    []string   `json:"reflections"`
	ReflectionsStr string     `json:"reflections_str"`
	Answer         string     `json:"answer"`
}

// refRun is one item's run of a reference agent.
type refRun struct {
	s      *reflexionRef
	env    Env
	inst   tasks.Instance
	tmpl   refTemplates
	data   RefPromptData // Examples, Context, Question fixed; the rest per call
	reflEx string
	st     refState
	tracer *stepCounter
}

func (s *reflexionRef) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	r := &refRun{s: s, env: env, inst: inst, tmpl: s.templates(), tracer: &stepCounter{Tracer: env.tracer()}}
	next := 0
	if env.Checkpoint != nil {
		n, ok, err := env.Checkpoint.Load(ctx, &r.st)
		if err != nil {
			return Result{}, err
		}
		if ok && (n != len(r.st.Trials) || n > s.trials) {
			return Result{}, fmt.Errorf("reflexion_ref: checkpoint says trial %d is next but holds %d trials", n, len(r.st.Trials))
		}
		if !ok {
			r.st = refState{}
		}
		next = n
	}
	var err error
	if r.data.Examples, err = render(env, r.tmpl.examples, nil); err != nil {
		return Result{}, err
	}
	if r.tmpl.reflectExamples != "" {
		if r.reflEx, err = render(env, r.tmpl.reflectExamples, nil); err != nil {
			return Result{}, err
		}
	}
	r.data.Question = inst.Input
	if s.agent == RefAgentCoT && s.context == "gold" {
		pd, err := promptData(env.Task, inst, refContextMode)
		if err != nil {
			return Result{}, err
		}
		r.data.Context = pd.Context
	}
	for t := next; t < s.trials; t++ {
		if t > 0 && r.st.Trials[t-1].Correct {
			break // the notebooks rerun only the agents not yet correct
		}
		tr := RefTrial{Trial: t + 1}
		r.tracer = &stepCounter{Tracer: env.tracer()} // steps count from 0 in every trial
		if t > 0 && s.reflection != ReflectNone {
			if tr.Reflection, err = r.reflect(ctx, t); err != nil {
				return Result{}, err
			}
		}
		tr.Reflections = r.st.ReflectionsStr
		if s.agent == RefAgentReAct {
			err = r.react(ctx, t, &tr)
		} else {
			err = r.cot(ctx, t, &tr)
		}
		if err != nil {
			return Result{}, err
		}
		tr.Answer, tr.Correct = r.st.Answer, r.correct(r.st.Answer)
		r.st.Trials = append(r.st.Trials, tr)
		if env.Checkpoint != nil {
			if err := env.Checkpoint.Save(ctx, t+1, r.st); err != nil {
				return Result{}, err
			}
		}
	}
	return r.result(), nil
}

// correct is the reference's EM(answer, key), through the task's scorer.
func (r *refRun) correct(answer string) bool {
	return answer != "" && r.env.Task.Score(r.inst, "Answer: "+answer).Correct
}

func (r *refRun) prompt(scratchpad string) (string, error) {
	d := r.data
	d.Reflections, d.Scratchpad = r.st.ReflectionsStr, scratchpad
	return render(r.env, r.tmpl.agent, d)
}

// ask sends one prompt as a single user turn and returns the reply after
// the reference's format_step.
// call is its identity: trial, step and kind.
func (r *refRun) ask(ctx context.Context, prompt, purpose, call string, maxTokens int, stop []string) (string, error) {
	resp, err := r.env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), Temperature: r.s.temperature,
		MaxTokens: maxTokens, Stop: stop, Purpose: purpose, Call: call})
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", errNoChoices(purpose)
	}
	return RefFormatStep(resp.Choices[0].Content), nil
}

var newlineStop = []string{"\n"}

func (r *refRun) step(ctx context.Context, t int, kind, content string) error {
	return r.tracer.Step(ctx, t, r.tracer.n, kind, content)
}

// cot is CoTAgent.step: Thought, Action, Observation.
func (r *refRun) cot(ctx context.Context, t int, tr *RefTrial) error {
	sp := "\nThought:"
	for _, kind := range []string{"thought", "action"} {
		p, err := r.prompt(sp)
		if err != nil {
			return err
		}
		out, err := r.ask(ctx, p, "agent", fmt.Sprintf("t%d/%s", t, kind), r.s.maxTokens, newlineStop)
		if err != nil {
			return err
		}
		sp += " " + out
		if err := r.step(ctx, t, kind, out); err != nil {
			return err
		}
		if kind == "thought" {
			sp += "\nAction:"
			continue
		}
		sp += "\nObservation: "
		if typ, arg, ok := RefParseAction(out); ok && typ == "Finish" {
			r.st.Answer = arg
			obs, err := r.verdict(arg)
			if err != nil {
				return err
			}
			sp += obs
			tr.Finished = true
			if err := r.step(ctx, t, "observation", obs); err != nil {
				return err
			}
		}
	}
	tr.Scratchpad = sp
	return nil
}

// verdict is the observation after Finish.
func (r *refRun) verdict(answer string) (string, error) {
	name := "ref_incorrect"
	if r.correct(answer) {
		name = "ref_correct"
	}
	return render(r.env, name, nil)
}

// react is ReactAgent.run: steps until finished or halted.
func (r *refRun) react(ctx context.Context, t int, tr *RefTrial) error {
	tb, ok := r.env.Task.(tasks.Toolbox)
	if !ok {
		return fmt.Errorf("reflexion_ref: task %s has no tools", r.env.Task.Name())
	}
	tools, err := tb.Tools(r.inst)
	if err != nil {
		return err
	}
	sp := ""
	n := 1
	for {
		if n > r.s.maxSteps {
			break
		}
		p, err := r.prompt(sp)
		if err != nil {
			return err
		}
		if r.s.tokens(p) > r.s.promptTokens {
			break
		}
		sp += fmt.Sprintf("\nThought %d:", n)
		if p, err = r.prompt(sp); err != nil {
			return err
		}
		out, err := r.ask(ctx, p, "agent", fmt.Sprintf("t%d/s%d/thought", t, n), r.s.maxTokens, newlineStop)
		if err != nil {
			return err
		}
		sp += " " + out
		if err := r.step(ctx, t, "thought", out); err != nil {
			return err
		}
		sp += fmt.Sprintf("\nAction %d:", n)
		if p, err = r.prompt(sp); err != nil {
			return err
		}
		action, err := r.ask(ctx, p, "agent", fmt.Sprintf("t%d/s%d/action", t, n), r.s.maxTokens, newlineStop)
		if err != nil {
			return err
		}
		sp += " " + action
		if err := r.step(ctx, t, "action", action); err != nil {
			return err
		}
		sp += fmt.Sprintf("\nObservation %d: ", n)
		typ, arg, _ := RefParseAction(action)
		var obs string
		switch typ {
		case "Finish":
			r.st.Answer = arg
			if obs, err = r.verdict(arg); err != nil {
				return err
			}
			tr.Finished = true
		case "Search", "Lookup":
			if obs, err = r.tool(ctx, tools, strings.ToLower(typ), arg); err != nil {
				return err
			}
		default:
			if obs, err = render(r.env, "ref_react_invalid", nil); err != nil {
				return err
			}
		}
		sp += obs
		if err := r.step(ctx, t, "observation", obs); err != nil {
			return err
		}
		n++
		if tr.Finished {
			break
		}
	}
	tr.Scratchpad, tr.Steps = sp, n-1
	return nil
}

// tool runs the task's tool name with its one argument; the observation is
// format_step'd as the reference does.
func (r *refRun) tool(ctx context.Context, tools []tasks.Tool, name, arg string) (string, error) {
	for _, tl := range tools {
		if tl.Name != name || len(tl.Params()) == 0 {
			continue
		}
		args, err := json.Marshal(map[string]string{tl.Params()[0].Name: arg})
		if err != nil {
			return "", err
		}
		res, err := tl.Call(ctx, args)
		if err != nil {
			return "", err
		}
		return RefFormatStep(res.Observation), nil
	}
	return render(r.env, "ref_react_invalid", nil)
}

// reflect is the agents' reflect(strategy) before trial t, on the
// previous trial's scratchpad.
func (r *refRun) reflect(ctx context.Context, t int) (string, error) {
	prev := r.st.Trials[t-1].Scratchpad
	header := func(name string) (string, error) { return render(r.env, name, nil) }
	lastTrial := func() (string, error) {
		h, err := header("ref_last_trial_header")
		if err != nil {
			return "", err
		}
		return RefFormatLastAttempt(h, r.data.Question, prev, r.s.reflectTokens, r.truncMarker(), r.s.tokens), nil
	}
	switch r.s.reflection {
	case ReflectLastAttempt:
		r.st.Reflections = []string{prev}
		s, err := lastTrial()
		r.st.ReflectionsStr = s
		return "", err
	case ReflectReflexion:
		text, err := r.reflection(ctx, prev)
		if err != nil {
			return "", err
		}
		r.st.Reflections = append(r.st.Reflections, text)
		h, err := header("ref_reflection_header")
		r.st.ReflectionsStr = RefFormatReflections(h, r.st.Reflections)
		return text, err
	case ReflectLastAttemptAndReflexion:
		s, err := lastTrial()
		if err != nil {
			return "", err
		}
		text, err := r.reflection(ctx, prev)
		if err != nil {
			return "", err
		}
		r.st.Reflections = []string{text}
		h, err := header("ref_reflection_after_last_trial_header")
		if r.s.agent == RefAgentCoT {
			s += "\n" // CoTAgent adds a newline here, ReactReflectAgent does not
		}
		r.st.ReflectionsStr = s + RefFormatReflections(h, r.st.Reflections)
		return text, err
	}
	return "", nil
}

// reflection asks for one reflection on a scratchpad: the CoT agent shows
// it whole and stops at a newline, the ReAct agent truncates it and sends
// no stop.
func (r *refRun) reflection(ctx context.Context, scratchpad string) (string, error) {
	d := RefPromptData{Examples: r.reflEx, Context: r.data.Context, Question: r.data.Question, Scratchpad: scratchpad}
	stop := newlineStop
	if r.s.agent == RefAgentReAct {
		d.Scratchpad = RefTruncateScratchpad(scratchpad, r.s.reflectTokens, r.truncMarker(), r.s.tokens)
		stop = nil
	}
	p, err := render(r.env, r.tmpl.reflect, d)
	if err != nil {
		return "", err
	}
	text, err := r.ask(ctx, p, "reflect", fmt.Sprintf("t%d/reflect", len(r.st.Trials)), r.s.reflectMaxT, stop)
	if err != nil {
		return "", err
	}
	return text, r.step(ctx, len(r.st.Trials), "reflection", text)
}

func (r *refRun) truncMarker() string {
	m, err := render(r.env, "ref_truncated", nil)
	if err != nil {
		return "[truncated]"
	}
	return m
}

func (r *refRun) result() Result {
	trials := r.st.Trials
	m := map[string]float64{"trials": float64(len(trials))}
	for i := 1; i <= r.s.trials; i++ {
		k := min(i, len(trials)) - 1
		m[fmt.Sprintf("after_trial_%d", i)] = boolFloat(trials[k].Correct)
		m[fmt.Sprintf("ran_trial_%d", i)] = boolFloat(i <= len(trials))
	}
	out := ""
	if r.st.Answer != "" {
		out = "Answer: " + r.st.Answer
	}
	sc := r.env.Task.Score(r.inst, out)
	return Result{Output: out, Score: sc, Accuracy: boolFloat(sc.Correct), Metrics: mergeMetrics(m, sc.Metrics),
		Detail: RefDetail{Agent: r.s.agent, Reflection: r.s.reflection, PeeksAtGold: true, Trials: trials}}
}

// refAction is the reference's parse_action pattern, ^(\w+)\[(.+)\]$, with
// Python's Unicode \w.
var refAction = regexp.MustCompile(`^([\p{L}\p{N}_]+)\[(.+)\]$`)

// RefParseAction splits "Type[argument]"; ok is false when the reference's
// pattern does not match.
func RefParseAction(s string) (typ, arg string, ok bool) {
	m := refAction.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// RefFormatStep is the reference's format_step: trimmed, newlines removed.
func RefFormatStep(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(strings.Trim(s, "\n")), "\n", "")
}

// RefFormatReflections is format_reflections: "" for none, else the header,
// "Reflections:" and one "- " line per reflection, each trimmed.
func RefFormatReflections(header string, reflections []string) string {
	if len(reflections) == 0 {
		return ""
	}
	items := make([]string, len(reflections))
	for i, r := range reflections {
		items[i] = strings.TrimSpace(r)
	}
	return header + "Reflections:\n- " + strings.Join(items, "\n- ")
}

// RefFormatLastAttempt is format_last_attempt: the header, the question,
// the truncated scratchpad and the end-of-trial line.
func RefFormatLastAttempt(header, question, scratchpad string, budget int, marker string, count func(string) int) string {
	return header + "Question: " + question + "\n" +
		strings.TrimSpace(strings.Trim(RefTruncateScratchpad(scratchpad, budget, marker, count), "\n")) + "\n(END PREVIOUS TRIAL)\n"
}

// RefTruncateScratchpad is truncate_scratchpad: while the text is over
// budget tokens (by count), the longest remaining observation line (by
// tokens; the last of equals) — found again by its text, so the first
// identical line is the one replaced — becomes "<its label>: <marker>". It
// stops when no observation is left (the reference raised there).
func RefTruncateScratchpad(s string, budget int, marker string, count func(string) int) string {
	lines := strings.Split(s, "\n")
	var obs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "Observation") {
			obs = append(obs, l)
		}
	}
	sort.SliceStable(obs, func(i, j int) bool { return count(obs[i]) < count(obs[j]) })
	for count(strings.Join(lines, "\n")) > budget && len(obs) > 0 {
		largest := obs[len(obs)-1]
		obs = obs[:len(obs)-1]
		for i, l := range lines {
			if l == largest {
				label, _, _ := strings.Cut(largest, ":")
				lines[i] = label + ": " + marker
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}
