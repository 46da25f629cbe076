package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies/action"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// react is ReAct (Yao et al., 2023): the model alternates a thought and an
// action, the action runs on the task's tools (tasks.Toolbox), and its
// observation comes back, until the model calls the final tool (finish) or
// runs out of steps. Three protocols write the actions:
//
//   - text: "Thought: ...\nAction: Search[entity]" lines, read by
//     action.ParseText; an observation comes back as a user turn
//     "Observation: ...".
//   - json: one JSON object {"thought", "action", "input"} per turn, read by
//     action.ParseJSON.
//   - tools: the API's native function calling; each tool's JSON schema is
//     generated from its Go argument type, every tool call is answered by a
//     tool message with its id, and the assistant turn (with any reasoning
//     content) is kept in the history as the model sent it.
//
// A step is one model turn. On the last of max_steps the model is told to
// finish (in the tools protocol the tools are withdrawn and it must answer
// in text); such a trajectory records hit_limit. If the model does not
// finish then, its last reply is the output. Whatever the model writes
// (nothing, garbage, malformed JSON, unknown tools, bad arguments) becomes
// an observation saying what was wrong, and the trajectory goes on.
type react struct {
	protocol    string
	maxSteps    int
	temperature *float64
	maxTokens   int
	// Set by Reflexion, whose actor shows earlier trials: template replaces
	// react_<protocol>, and the last attempt and reflections fill its
	// memory section.
	template    string
	lastAttempt string
	reflections []string
	// tools is the tool set (react_python.go): the task's, a Python
	// interpreter in the sandbox, or both; limits bound each program.
	tools  string
	limits sandbox.Limits
	// external is set when the run brings tools (ToolUser): a task
	// without tools then acts with them and a generic finish.
	external bool
	// On an environment's episodes (react_episode.go): trials per item,
	// the simulated user's strategy and whether it is asked the
	// reference's setup call, few-shot examples and their draw's seed.
	trials      int
	user        string
	userSetup   bool
	fewShot     int
	fewShotSeed int64
}

// ReAct protocols.
const (
	ProtocolText  = "text"
	ProtocolJSON  = "json"
	ProtocolTools = "tools"
)

var reactParams = []param.Param{
	{Name: "protocol", Kind: param.String, Default: ProtocolText, Allowed: []string{ProtocolText, ProtocolJSON, ProtocolTools, ProtocolXML, ProtocolAct, ProtocolReAct},
		Doc: "how actions are written: text Thought/Action lines, one JSON object a turn, native tool calls, or XML tags <tool><param>value</param></tool>; on episodes (tau-*) also act and react, τ-bench's text agents (an Action: JSON line, with a Thought: line for react)"},
	{Name: "max_steps", Kind: param.Int, Default: 7, Min: param.Bound(1), Max: param.Bound(100), Doc: "model turns per trajectory; on the last one the model must finish"},
	temperatureParam("temperature", 0.0, "sampling temperature (ReAct used greedy decoding)"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit per turn (0: server default)"},
	{Name: "tools", Kind: param.String, Default: ToolsTask, Allowed: []string{ToolsTask, ToolsPython, ToolsTaskPython}, Late: true,
		Doc: "the agent's tools: the task's; python, a Python interpreter in the sandbox (observations are the program's output or its error) and a finish tool (the task's, else finish[answer]); or task+python"},
	lateParam(timeoutParam),
	{Name: "trials", Kind: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(100), Late: true,
		Doc: "episodes per item on a task with a simulated user (tau-*), each its own draws; the item records pass^1..pass^trials"},
	{Name: "user", Kind: param.String, Default: "llm", Late: true,
		Doc: "the simulated user's strategy on a task with episodes (tau-*: llm, react, verify, reflection)"},
	{Name: "user_setup", Kind: param.Bool, Default: false, Late: true,
		Doc: "ask the user's model the call τ-bench's user simulator makes before each episode (answered and discarded), as the reference presets do"},
	{Name: "fewshot", Kind: param.Int, Default: 0, Min: param.Bound(0), Max: param.Bound(50), Late: true,
		Doc: "with protocol=tools on episodes: example dialogues shown after the policy (τ-bench's few-shot agent: 5)"},
	{Name: "fewshot_seed", Kind: param.Int, Default: 10, Late: true,
		Doc: "the seed of the examples' draw, as run.py's --seed (its default 10)"},
}

// reactTemplates are the templates react renders (Spec.Templates).
func reactTemplates(v param.Values) []string {
	v = v.WithDefaults(reactParams)
	if t := v.String("tools"); t == ToolsPython || t == ToolsTaskPython {
		return []string{"react_python"}
	}
	return []string{"react_" + v.String("protocol")}
}

func newReAct(v param.Values) (Strategy, error) {
	v = v.WithDefaults(reactParams)
	return &react{protocol: v.String("protocol"), maxSteps: v.Int("max_steps"),
		temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"),
		tools: v.String("tools"), limits: limitsOf(v.Float("timeout")),
		trials: v.Int("trials"), user: v.String("user"), userSetup: v.Bool("user_setup"),
		fewShot: v.Int("fewshot"), fewShotSeed: int64(v.Int("fewshot_seed"))}, nil
}

// NeedsSandbox: tools=python and task+python run the model's programs.
func (s *react) NeedsSandbox() string {
	if strings.Contains(s.tools, ToolsPython) {
		return "tools=" + s.tools + " runs the model's programs"
	}
	return ""
}

// CheckTask rejects tasks without tools.
// NeedsChat: a ReAct trajectory is a conversation (its thoughts and
// actions, the observations, or tool calls and their results).
func (s *react) NeedsChat() string {
	return "its trajectory is a conversation of model turns and observations"
}

// UseExternalTools: the run's tools join the task's.
func (s *react) UseExternalTools() bool {
	s.external = true
	return true
}

func (s *react) CheckTask(t tasks.Task) error {
	if e, ok := t.(tasks.Environment); ok {
		return s.checkEpisodes(t, e)
	}
	switch {
	case s.protocol == ProtocolAct || s.protocol == ProtocolReAct:
		return fmt.Errorf("protocol=%s is τ-bench's text agent, for tasks with a simulated user (tau-*); on %s use text, json, tools or xml", s.protocol, t.Name())
	case s.trials > 1 || s.fewShot != 0:
		return fmt.Errorf("trials and fewshot are for tasks with a simulated user (tau-*); task %s has none", t.Name())
	}
	if _, ok := t.(tasks.Toolbox); !ok && s.tools != ToolsPython && !s.external {
		return fmt.Errorf("task %s offers no tools to act with", t.Name())
	}
	return nil
}

// Bounds on what a trajectory keeps of the model's output and the tools'.
const (
	maxThought      = 2000  // a thought, as stored and traced
	maxObservation  = 8000  // an observation, as sent and stored
	maxTurnText     = 8000  // an assistant turn's content kept in the history
	maxReasoning    = 32000 // an assistant turn's reasoning content kept in the history
	maxReply        = 2000  // an unreadable reply, as stored
	maxCallText     = 1000  // an action, as stored and traced
	maxOutput       = 8000  // the final output when the model did not finish
	maxArgs         = 16 << 10
	maxCallsPerTurn = 8
)

func (s *react) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if e, ok := env.Task.(tasks.Environment); ok {
		return s.solveEpisodes(ctx, env, e, inst)
	}
	tr, err := s.run(ctx, env, inst, 0)
	if err != nil {
		return Result{}, err
	}
	sc := env.Task.Score(inst, tr.Output)
	metrics := map[string]float64{
		"hit_limit":       boolFloat(tr.HitLimit),
		"steps":           float64(len(tr.Steps)),
		"invalid_actions": float64(tr.Invalid),
	}
	if env.Tools != nil {
		var calls []*events.ToolCall
		for _, st := range tr.Steps {
			for _, a := range st.Actions {
				calls = append(calls, a.External)
			}
		}
		maps.Copy(metrics, toolMetrics(calls))
	}
	return Result{Output: tr.Output, Score: sc, Accuracy: boolFloat(sc.Correct),
		Metrics: mergeMetrics(metrics, sc.Metrics), Detail: tr}, nil
}

// reactToolDoc describes a tool to the templates.
type reactToolDoc struct {
	Name        string // "search"
	Syntax      string // "Search[entity]"
	Description string
	Schema      string // an external tool's arguments schema (the agent_ templates show it)
	XML         string // the call as the xml protocol writes it: <search><entity>...</entity></search>
}

// reactPromptData is what the react_<protocol> templates see.
type reactPromptData struct {
	Input       string
	MaxSteps    int
	Protocol    string // text, json, xml or tools
	Tools       []reactToolDoc
	LastAttempt string   // Reflexion: the previous trial's trajectory
	Reflections []string // Reflexion: reflections shown, oldest first
}

// agent is one trajectory in progress.
type agent struct {
	s      *react
	env    Env
	trial  int
	tools  []tasks.Tool
	final  *tasks.Tool
	specs  []llm.ToolSpec
	msgs   []llm.Message
	seq    int // trace step counter
	traj   reading.ReActTrajectory
	output string
	// step is the turn being carried out and pyCalls the python runs in
	// it, which name the runs' sites.
	step    int
	pyCalls int
}

// run plays one trajectory; trial numbers its trace steps.
func (s *react) run(ctx context.Context, env Env, inst tasks.Instance, trial int) (reading.ReActTrajectory, error) {
	a := &agent{s: s, env: env, trial: trial,
		traj: reading.ReActTrajectory{Protocol: s.protocol, MaxSteps: s.maxSteps, Steps: []reading.ReActStep{}}}
	tools, err := a.toolSet(inst)
	if err != nil {
		return reading.ReActTrajectory{}, err
	}
	if len(tools) == 0 {
		return reading.ReActTrajectory{}, fmt.Errorf("react: task %s offered no tools", env.Task.Name())
	}
	a.tools = tools
	docs := make([]reactToolDoc, len(tools))
	for i := range tools {
		t := &tools[i]
		if t.Final && a.final == nil {
			a.final = t
		}
		docs[i] = toolDoc(*t)
		a.specs = append(a.specs, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Schema()})
	}
	name := "react_" + s.protocol
	if s.tools == ToolsPython || s.tools == ToolsTaskPython {
		name = "react_python"
	}
	if s.template != "" {
		name = s.template
	}
	if agentOnly(env) {
		name = "agent_" + s.protocol
	}
	prompt, err := render(env, name, reactPromptData{Input: inst.Input, MaxSteps: s.maxSteps, Tools: docs, Protocol: s.protocol,
		LastAttempt: s.lastAttempt, Reflections: s.reflections})
	if err != nil {
		return reading.ReActTrajectory{}, err
	}
	a.msgs = userPrompt(prompt)
	for step := 1; step <= s.maxSteps; step++ {
		done, err := a.turn(ctx, step, step == s.maxSteps)
		if err != nil {
			return reading.ReActTrajectory{}, err
		}
		if done {
			break
		}
	}
	a.traj.Output = a.output
	if a.output != "" {
		if err := a.record(ctx, "answer", a.output); err != nil {
			return reading.ReActTrajectory{}, err
		}
	}
	return a.traj, nil
}

func (a *agent) record(ctx context.Context, kind, content string) error {
	err := a.env.tracer().Step(ctx, a.trial, a.seq, kind, content)
	a.seq++
	return err
}

// turn asks for one step and carries out its actions; done reports that the
// trajectory is over.
func (a *agent) turn(ctx context.Context, step int, last bool) (bool, error) {
	ctx = events.WithStep(ctx, fmt.Sprintf("t%d/s%d", a.trial, step)) // a turn's calls run one after another
	a.step, a.pyCalls = step, 0
	req := llm.Request{Messages: a.msgs, Temperature: a.s.temperature, MaxTokens: a.s.maxTokens,
		Purpose: "react", Call: fmt.Sprintf("t%d/s%d/react", a.trial, step)}
	if last {
		a.traj.HitLimit = true
		a.msgs = withNotice(a.msgs, a.s.protocol, a.lastStepNotice())
		req.Messages = a.msgs
	}
	switch a.s.protocol {
	case ProtocolTools:
		if !last {
			req.Tools = a.specs
		}
	case ProtocolText:
		req.Stop = []string{"\nObservation"}
	}
	resp, err := a.env.Sampler.Sample(ctx, req)
	if err != nil {
		return false, err
	}
	if len(resp.Choices) == 0 {
		return false, errNoChoices("react")
	}
	ch := resp.Choices[0]
	st := reading.ReActStep{Step: step}
	var done bool
	if a.s.protocol == ProtocolTools {
		done, err = a.toolTurn(ctx, ch, &st, last)
	} else {
		done, err = a.textTurn(ctx, ch, &st, last)
	}
	a.traj.Steps = append(a.traj.Steps, st)
	return done, err
}

// withNotice returns a copy of msgs carrying the last-step notice: on the
// last user turn for the text protocols, as a new user turn after the tool
// results for the tools protocol.
func withNotice(msgs []llm.Message, protocol, notice string) []llm.Message {
	out := slices.Clone(msgs)
	if protocol == ProtocolTools || out[len(out)-1].Role != "user" {
		return append(out, llm.Message{Role: "user", Content: notice})
	}
	out[len(out)-1].Content += "\n\n" + notice
	return out
}

// lastStepNotice tells the model the step limit is reached. Simulated
// models look for "last step".
func (a *agent) lastStepNotice() string {
	switch a.s.protocol {
	case ProtocolTools:
		return `This is the last step and the tools are no longer available: give your final answer now, on a line starting with "Answer:".`
	case ProtocolJSON:
		if a.final != nil {
			return fmt.Sprintf(`This is the last step: give your final answer now with {"thought": "...", "action": %q, "input": ...}.`, a.final.Name)
		}
	case ProtocolXML:
		if a.final != nil {
			return fmt.Sprintf("This is the last step: give your final answer now with %s.", xmlSyntax(*a.final))
		}
	default:
		if a.final != nil {
			return fmt.Sprintf("This is the last step: give your final answer now with %s.", textSyntax(*a.final))
		}
	}
	return "This is the last step: give your final answer now."
}

// textTurn handles a reply in the text or JSON protocol: one action.
func (a *agent) textTurn(ctx context.Context, ch llm.Choice, st *reading.ReActStep, last bool) (bool, error) {
	a.msgs = append(a.msgs, llm.Message{Role: "assistant", Content: capText(ch.Content, maxTurnText),
		Reasoning: capText(ch.Reasoning, maxReasoning)})
	var act action.Action
	var perr error
	switch a.s.protocol {
	case ProtocolJSON:
		act, perr = action.ParseJSON(ch.Content)
	case ProtocolXML:
		act, perr = action.ParseXML(ch.Content, a.schema)
	default:
		act, perr = action.ParseText(ch.Content)
	}
	thought := act.Thought
	if strings.TrimSpace(thought) == "" {
		thought = ch.Reasoning
	}
	if err := a.thought(ctx, st, thought); err != nil {
		return false, err
	}
	var tool tasks.Tool
	if perr == nil {
		var ok bool
		if tool, ok = a.lookup(act.Name); !ok {
			perr = fmt.Errorf("unknown action %q", clip(act.Name, 80))
		}
	}
	if perr != nil {
		if strings.TrimSpace(ch.Content) == "" {
			perr = fmt.Errorf("the reply was empty")
		}
		st.Reply = capText(ch.Content, maxReply)
		obs := a.invalidObservation(perr)
		return a.observe(ctx, st, reading.ReActAction{Call: actionText(act), Observation: obs, Invalid: true}, last, ch.Content)
	}
	call := reading.ReActAction{Tool: tool.Name, Call: actionText(act)}
	if err := a.record(ctx, "action", call.Call); err != nil {
		return false, err
	}
	if last && !tool.Final {
		call.Observation = "Not run: the step limit was reached."
		st.Actions = append(st.Actions, call)
		a.output = capText(ch.Content, maxOutput)
		return true, a.record(ctx, "observation", call.Observation)
	}
	res, err := tool.Call(ctx, actionArgs(tool, act))
	if err != nil {
		return false, err
	}
	call.Observation = capText(res.Observation, maxObservation)
	call.Invalid, call.External = res.Refused, res.Call
	if res.Final {
		st.Actions = append(st.Actions, call)
		a.traj.Finished = true
		a.output = res.Output
		return true, a.record(ctx, "observation", call.Observation)
	}
	return a.observe(ctx, st, call, last, ch.Content)
}

// observe stores an action's observation and sends it back to the model,
// or, on the last step, ends the trajectory with reply as the output.
func (a *agent) observe(ctx context.Context, st *reading.ReActStep, call reading.ReActAction, last bool, reply string) (bool, error) {
	if call.Invalid {
		a.traj.Invalid++
	}
	st.Actions = append(st.Actions, call)
	if call.Call != "" && call.Tool == "" {
		if err := a.record(ctx, "action", call.Call); err != nil {
			return false, err
		}
	}
	if err := a.recordObservation(ctx, call); err != nil {
		return false, err
	}
	if last {
		a.output = capText(reply, maxOutput)
		return true, nil
	}
	a.msgs = append(a.msgs, llm.Message{Role: "user", Content: "Observation: " + call.Observation})
	return false, nil
}

func (a *agent) thought(ctx context.Context, st *reading.ReActStep, thought string) error {
	st.Thought = capText(strings.TrimSpace(thought), maxThought)
	if st.Thought == "" {
		return nil
	}
	return a.record(ctx, "thought", st.Thought)
}

// invalidObservation says what was wrong with a reply and how to write one.
func (a *agent) invalidObservation(err error) string {
	if a.s.protocol == ProtocolJSON {
		names := make([]string, len(a.tools))
		for i, t := range a.tools {
			names[i] = t.Name
		}
		return capText(fmt.Sprintf(`Invalid reply: %v. Reply with one JSON object {"thought": "...", "action": "...", "input": ...}; valid actions are %s.`,
			err, strings.Join(names, ", ")), maxObservation)
	}
	if a.s.protocol == ProtocolXML {
		syntax := make([]string, len(a.tools))
		for i, t := range a.tools {
			syntax[i] = xmlSyntax(t)
		}
		return capText(fmt.Sprintf("Invalid action: %v. Write one tool call as XML tags; valid calls are %s.", err, strings.Join(syntax, ", ")), maxObservation)
	}
	syntax := make([]string, len(a.tools))
	for i, t := range a.tools {
		syntax[i] = textSyntax(t)
	}
	return capText(fmt.Sprintf("Invalid action: %v. Valid actions are %s.", err, strings.Join(syntax, ", ")), maxObservation)
}

// xmlSyntax writes a tool as the xml protocol shows it:
// <search><entity>...</entity></search>.
func xmlSyntax(t tasks.Tool) string {
	var b strings.Builder
	b.WriteString("<" + t.Name + ">")
	for _, p := range t.Params() {
		b.WriteString("<" + p.Name + ">...</" + p.Name + ">")
	}
	b.WriteString("</" + t.Name + ">")
	return b.String()
}

// toolTurn handles a reply in the tools protocol: any number of tool calls,
// each answered by a tool message with its id.
func (a *agent) toolTurn(ctx context.Context, ch llm.Choice, st *reading.ReActStep, last bool) (bool, error) {
	msg := ch.Message()
	msg.Content = capText(msg.Content, maxTurnText)
	msg.Reasoning = capText(msg.Reasoning, maxReasoning)
	calls := slices.Clone(ch.ToolCalls)
	tooLong := make([]bool, len(calls))
	seen := map[string]bool{}
	for j := range calls {
		c := &calls[j]
		// Every call needs a distinct id for its result to be matched.
		if c.ID == "" || seen[c.ID] {
			c.ID = fmt.Sprintf("call_%d_%d", st.Step, j)
		}
		seen[c.ID] = true
		if len(c.Arguments) > maxArgs {
			c.Arguments, tooLong[j] = "{}", true
		}
	}
	msg.ToolCalls = calls
	a.msgs = append(a.msgs, msg)
	// The thought is the visible text beside the calls, else the reasoning
	// content (always when the text is the final answer).
	thought := ch.Content
	if strings.TrimSpace(thought) == "" || len(calls) == 0 && last {
		thought = ch.Reasoning
	}
	if err := a.thought(ctx, st, thought); err != nil {
		return false, err
	}
	if len(calls) == 0 {
		if last {
			a.output = capText(ch.Content, maxOutput)
			return true, nil
		}
		obs := "No tool was called. Call one of the tools"
		if a.final != nil {
			obs += fmt.Sprintf("; call %s with your answer when you are done", a.final.Name)
		}
		obs += "."
		st.Reply = capText(ch.Content, maxReply)
		return a.observe(ctx, st, reading.ReActAction{Observation: obs, Invalid: true}, false, "")
	}
	finished := false
	for j, c := range calls {
		call := reading.ReActAction{ID: c.ID, Call: clip(c.Name, 100) + " " + clip(c.Arguments, maxCallText)}
		if err := a.record(ctx, "action", call.Call); err != nil {
			return false, err
		}
		tool, known := a.lookup(c.Name)
		switch {
		case finished:
			call.Observation = "Not run: the task has already finished."
		case j >= maxCallsPerTurn:
			call.Observation, call.Invalid = fmt.Sprintf("Not run: at most %d tool calls are run per turn.", maxCallsPerTurn), true
		case !known:
			call.Observation, call.Invalid = fmt.Sprintf("Unknown tool %q. Available tools: %s.", clip(c.Name, 80), a.toolNames()), true
		case tooLong[j]:
			call.Tool = tool.Name
			call.Observation, call.Invalid = fmt.Sprintf("Invalid arguments for %s: longer than %d bytes.", tool.Name, maxArgs), true
		case last && !tool.Final:
			call.Tool = tool.Name
			call.Observation = "Not run: the step limit was reached."
		default:
			call.Tool = tool.Name
			res, err := tool.Call(ctx, json.RawMessage(c.Arguments))
			if err != nil {
				return false, err
			}
			call.Observation, call.Invalid, call.External = capText(res.Observation, maxObservation), res.Refused, res.Call
			if res.Final {
				finished = true
				a.traj.Finished = true
				a.output = res.Output
			}
		}
		if call.Invalid {
			a.traj.Invalid++
		}
		st.Actions = append(st.Actions, call)
		if err := a.recordObservation(ctx, call); err != nil {
			return false, err
		}
		a.msgs = append(a.msgs, llm.Message{Role: "tool", Content: call.Observation, ToolCallID: c.ID, Name: clip(c.Name, 100)})
	}
	if finished {
		return true, nil
	}
	if last {
		a.output = capText(ch.Content, maxOutput)
		return true, nil
	}
	return false, nil
}

// lookup finds a tool by name, ignoring case, surrounding punctuation and
// an argument glued to the name ("Search[x]").
func (a *agent) lookup(name string) (tasks.Tool, bool) {
	n := strings.TrimSpace(name)
	if i := strings.IndexAny(n, "[("); i >= 0 {
		n = n[:i]
	}
	n = strings.Trim(n, " \t*_`'\".:")
	for _, t := range a.tools {
		if strings.EqualFold(t.Name, n) {
			return t, true
		}
	}
	return tasks.Tool{}, false
}

// schema is the arguments schema of the tool called name (the xml
// protocol reads values by it), nil for an unknown one.
func (a *agent) schema(name string) json.RawMessage {
	if t, ok := a.lookup(name); ok {
		return t.Schema()
	}
	return nil
}

func (a *agent) toolNames() string {
	names := make([]string, len(a.tools))
	for i, t := range a.tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// textSyntax writes a tool as the text protocol shows it: Search[entity].
func textSyntax(t tasks.Tool) string {
	var names []string
	for _, p := range t.Params() {
		names = append(names, p.Name)
	}
	return capitalize(t.Name) + "[" + strings.Join(names, ", ") + "]"
}

func capitalize(s string) string {
	r, w := utf8.DecodeRuneInString(s)
	if w == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[w:]
}

// actionText writes an action as stored: Search[Paris], or
// add {"a": 4, "b": 5} for JSON object arguments.
func actionText(a action.Action) string {
	if a.Name == "" {
		return ""
	}
	if a.Args != nil {
		return clip(a.Name, 100) + " " + clip(string(a.Args), maxCallText)
	}
	return clip(a.Name, 100) + "[" + clip(a.Input, maxCallText) + "]"
}

// actionArgs turns a text or JSON action into the tool's JSON arguments: an
// object input as is; for one argument, the whole input; for several,
// the input split at commas in argument order ("4, 5" → a=4, b=5), each
// part trimmed of quotes. Whatever it gives, the tool's own decoding
// judges.
func actionArgs(t tasks.Tool, a action.Action) json.RawMessage {
	if a.Args != nil {
		return a.Args
	}
	in := strings.TrimSpace(a.Input)
	if strings.HasPrefix(in, "{") && json.Valid([]byte(in)) {
		return json.RawMessage(in)
	}
	params := t.Params()
	m := map[string]string{}
	switch len(params) {
	case 0:
	case 1:
		m[params[0].Name] = in
	default:
		for i, part := range strings.SplitN(in, ",", len(params)) {
			part = strings.Trim(strings.TrimSpace(part), `"'`)
			if part != "" {
				m[params[i].Name] = part
			}
		}
	}
	b, _ := json.Marshal(m)
	return b
}
