// Package user is τ-bench's simulated user: the customer an episode's
// agent talks with, played by the run's user model. It ports the
// reference's four user simulators (tau_bench/envs/user.py:
// LLMUserSimulationEnv, ReactUserSimulationEnv, VerifyUserSimulationEnv,
// ReflectionUserSimulationEnv) making their decisions exactly: the same
// requests, in the same order, with the same messages, and the same
// replies handed to the agent. The prompts are the templates of folder
// "tau" (Folder): the bundled ones are our own wording; `bench prompts
// import --from tau-bench` writes the reference's.
//
// The simulator keeps the reference's history (its self.messages): a
// system turn (template user_llm, or user_react for the react strategy,
// with the task's instruction), the agent's greeting as a user turn
// (user_opening), then the agent's messages as user turns and the model's
// replies, raw, as assistant turns. Each strategy asks its model as
// follows; every request carries the history or a single user turn, no
// temperature (the reference sends none) and purpose "user".
//
//   - llm: one request per turn; the reply is appended and returned as it
//     stands.
//   - react: one request per turn; the reply is appended raw and parsed
//     as the reference's parse_response does: a reply containing
//     "###STOP###" is "###STOP###"; else a reply with "Thought:" is all
//     that follows it, labels included ("<thought>\n\nUser Response:\n<line>"
//     comes back whole), stripped; else the text after "User Response:";
//     a reply with none of them, or with a label twice (Python's split
//     unpacks two parts), is an error.
//   - verify: up to 3 attempts, each a reply and a check of it (template
//     user_verify: the transcript of the history and the reply; the reply
//     passes when the check's answer, lower-cased, contains "true", so
//     "untrue" passes, as in the reference). A verified reply is appended
//     and returned; when none is, the last reply is returned and NOT
//     appended, as in the reference.
//   - reflection: a reply (appended) and its check; if the check fails, a
//     reflection (template user_reflect; its answer's text after
//     "Response:") is added as a user turn to a copy of the history, a
//     second reply is asked on that copy (appended to the history too,
//     as the reference's super().generate_next_message appends it) and
//     checked; the second reply is returned if it passes, else the first.
//
// Calls per turn: llm and react 1; verify 2, 4 or 6; reflection 2 or 5.
//
// Python's None. The sampler gives a reply without content (JSON null) as
// "", so an empty reply is taken for the reference's None: returned to the
// agent it is an error (the reference's environment fails on it), as is a
// check or reflection without content (None.lower(), None.split());
// interpolated into a prompt (reflection's checks) it reads "None", in a
// transcript too. Requests carry it as "".
//
// Where the reference raises on its model's reply, the error wraps
// ErrReply: τ-bench's run.py records the episode with reward 0. Any other
// error is the sampler's (the user model failed, the context ended).
package user

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// The user strategies, as τ-bench names them.
const (
	LLM        = "llm"
	ReAct      = "react"
	Verify     = "verify"
	Reflection = "reflection"
)

// Strategies lists the user strategies, the default first.
func Strategies() []string { return []string{LLM, ReAct, Verify, Reflection} }

// Stop is what the user says to end the conversation: an episode ends
// when the user's reply contains it.
const Stop = "###STOP###"

// Folder is the prompt folder of the user's templates (tau/user_llm, ...).
const Folder = "tau"

// Purpose is the purpose recorded with every call of the user's model.
const Purpose = "user"

// The reference's attempt limits (VerifyUserSimulationEnv's and
// ReflectionUserSimulationEnv's max_attempts defaults).
const (
	verifyAttempts     = 3
	reflectionAttempts = 2
)

// ErrReply marks a reply of the user's model the reference cannot use
// (it raises): a react reply without its labels, a check or reflection
// without content, a reflection without one "Response:", no reply at
// all, or an empty reply handed to the agent.
var ErrReply = errors.New("the user's model gave a reply τ-bench's user simulator cannot use")

// PromptData is what templates user_llm and user_react see.
type PromptData struct {
	// Instruction is the task's instruction for the user; "" stands for
	// the reference's None (the constructor's setup calls), whose prompt
	// has no instruction block.
	Instruction string
}

// CheckData is what templates user_verify and user_reflect see.
type CheckData struct {
	// Transcript is the conversation so far, one "<Label>: <content>"
	// line per message of the user's history joined by "\n", labelled as
	// the reference's map_role_label does: user turns (the agent's words)
	// "Customer", assistant turns (the user model's) "Agent", the system
	// turn "System".
	Transcript string
	// Response is the reply being judged: its text ("None" for a reply
	// without content). The verify strategy's reference interpolates the
	// litellm Message object there, whose repr (Message(content=...,
	// role=..., ...), varying with litellm's version) cannot be
	// reproduced: its content stands in for it.
	Response string
}

// Simulator is one episode's simulated user. It is used by one episode
// at a time.
type Simulator struct {
	strategy string
	trial    int
	sampler  llm.Sampler
	lib      *prompts.Library
	setup    bool

	history []message
	started bool // Reset was called
	turn    int  // the next turn's number (Reset and Step)
	setups  int  // setup resets made
	calls   int
}

// message is a turn of the history; content is a Python str or None.
type message struct {
	role    string
	content text
}

// text is a Python str, or None.
type text struct {
	s    string
	none bool
}

// str is the text as a Python f-string interpolates it.
func (t text) str() string {
	if t.none {
		return "None"
	}
	return t.s
}

// New returns trial's simulated user running on u. strategy is one of
// Strategies ("" means u.Strategy; one that contradicts u.Strategy is an
// error).
func New(strategy string, trial int, u tasks.User) (*Simulator, error) {
	if strategy == "" {
		strategy = u.Strategy
	}
	if u.Strategy != "" && u.Strategy != strategy {
		return nil, fmt.Errorf("user: strategy %q contradicts the user's strategy %q", strategy, u.Strategy)
	}
	if !slices.Contains(Strategies(), strategy) {
		return nil, fmt.Errorf("user: unknown strategy %q (known: %s)", strategy, strings.Join(Strategies(), ", "))
	}
	if u.Sampler == nil || u.Prompts == nil {
		return nil, errors.New("user: a simulated user needs a sampler and a prompt library")
	}
	return &Simulator{strategy: strategy, trial: trial, sampler: u.Sampler, lib: u.Prompts, setup: u.Setup}, nil
}

// Calls is how many requests the user's model has been sent.
func (s *Simulator) Calls() int { return s.calls }

// Setup makes the requests the reference's user constructor makes before
// the task starts, when u.Setup asked for them (reference presets), and
// nothing otherwise. The constructor resets the user without an
// instruction and discards the answer: llm once (1 call); react twice
// (its __init__ runs the base constructor, which resets, then resets
// again: 2 calls, either failing on a reply without its labels, as the
// reference's constructor raises); verify once (2 to 6 calls); reflection
// once (2 or 5 calls). An empty final answer is discarded without error,
// as the reference discards None.
func (s *Simulator) Setup(ctx context.Context) error {
	if !s.setup {
		return nil
	}
	n := 1
	if s.strategy == ReAct {
		n = 2
	}
	for range n {
		s.setups++
		if _, err := s.reset(ctx, "", fmt.Sprintf("t%d/user/setup%d", s.trial, s.setups)); err != nil {
			return fmt.Errorf("user setup: %w", err)
		}
	}
	return nil
}

// Reset starts the conversation with the task's instruction: the user's
// first message to the agent.
func (s *Simulator) Reset(ctx context.Context, instruction string) (string, error) {
	reply, err := s.reset(ctx, instruction, s.nextTurn())
	if err != nil {
		return "", err
	}
	s.started = true
	return s.agentText(reply)
}

// Step gives the user the agent's message and returns the user's reply.
func (s *Simulator) Step(ctx context.Context, agentMessage string) (string, error) {
	if !s.started {
		return "", errors.New("user: Step before Reset")
	}
	s.history = append(s.history, message{role: "user", content: text{s: agentMessage}})
	reply, err := s.generate(ctx, s.nextTurn())
	if err != nil {
		return "", err
	}
	return s.agentText(reply)
}

// nextTurn is the call identity of the next turn's first request.
func (s *Simulator) nextTurn() string {
	id := fmt.Sprintf("t%d/user/%d", s.trial, s.turn)
	s.turn++
	return id
}

// agentText is a reply as the agent gets it: None is an error where the
// reference's environment uses it (observation must be a str; "###STOP###"
// in None raises).
func (s *Simulator) agentText(t text) (string, error) {
	if t.none {
		return "", fmt.Errorf("%w: %s user: an empty reply", ErrReply, s.strategy)
	}
	return t.s, nil
}

// reset is the reference's reset(instruction): a fresh history and the
// strategy's reply to it.
func (s *Simulator) reset(ctx context.Context, instruction, id string) (text, error) {
	tmpl := "user_llm"
	if s.strategy == ReAct {
		tmpl = "user_react"
	}
	system, err := s.render(tmpl, PromptData{Instruction: instruction})
	if err != nil {
		return text{}, err
	}
	opening, err := s.render("user_opening", struct{}{})
	if err != nil {
		return text{}, err
	}
	s.history = []message{{role: "system", content: text{s: system}}, {role: "user", content: text{s: opening}}}
	return s.generate(ctx, id)
}

// generate is the strategy's generate_next_message(self.messages).
func (s *Simulator) generate(ctx context.Context, id string) (text, error) {
	switch s.strategy {
	case ReAct:
		reply, err := s.reply(ctx, s.history, id)
		if err != nil {
			return text{}, err
		}
		return parseReAct(reply)
	case Verify:
		return s.verifyLoop(ctx, id)
	case Reflection:
		return s.reflectionLoop(ctx, id)
	}
	return s.reply(ctx, s.history, id)
}

// reply is LLMUserSimulationEnv.generate_next_message(msgs): a request on
// msgs whose reply is appended, raw, to the history (not to msgs).
func (s *Simulator) reply(ctx context.Context, msgs []message, id string) (text, error) {
	t, err := s.ask(ctx, msgs, id)
	if err != nil {
		return text{}, err
	}
	s.history = append(s.history, message{role: "assistant", content: t})
	return t, nil
}

// verifyLoop is VerifyUserSimulationEnv.generate_next_message.
func (s *Simulator) verifyLoop(ctx context.Context, id string) (text, error) {
	var cur text
	for a := 1; a <= verifyAttempts; a++ {
		var err error
		if cur, err = s.ask(ctx, s.history, attemptID(id, a)); err != nil {
			return text{}, err
		}
		ok, err := s.verify(ctx, cur, s.history, fmt.Sprintf("%s/verify%d", id, a))
		if err != nil {
			return text{}, err
		}
		if ok {
			s.history = append(s.history, message{role: "assistant", content: cur})
			return cur, nil
		}
	}
	return cur, nil
}

// reflectionLoop is ReflectionUserSimulationEnv.generate_next_message.
func (s *Simulator) reflectionLoop(ctx context.Context, id string) (text, error) {
	cur := slices.Clone(s.history)
	initial, err := s.reply(ctx, cur, id)
	if err != nil {
		return text{}, err
	}
	ok, err := s.verify(ctx, initial, cur, id+"/verify1")
	if err != nil || ok {
		return initial, err
	}
	for a := 2; a <= reflectionAttempts; a++ {
		note, err := s.reflect(ctx, initial, cur, fmt.Sprintf("%s/reflect%d", id, a-1))
		if err != nil {
			return text{}, err
		}
		cur = append(cur, message{role: "user", content: text{s: note}})
		next, err := s.reply(ctx, cur, attemptID(id, a))
		if err != nil {
			return text{}, err
		}
		ok, err := s.verify(ctx, next, cur, fmt.Sprintf("%s/verify%d", id, a))
		if err != nil {
			return text{}, err
		}
		if ok {
			return next, nil
		}
	}
	return initial, nil
}

// attemptID is the identity of a turn's a-th reply.
func attemptID(id string, a int) string {
	if a == 1 {
		return id
	}
	return fmt.Sprintf("%s/attempt%d", id, a)
}

// verify is the reference's verify(): whether the check's answer,
// lower-cased, contains "true".
func (s *Simulator) verify(ctx context.Context, response text, msgs []message, id string) (bool, error) {
	prompt, err := s.render("user_verify", CheckData{Transcript: transcript(msgs), Response: response.str()})
	if err != nil {
		return false, err
	}
	ans, err := s.ask(ctx, []message{{role: "user", content: text{s: prompt}}}, id)
	if err != nil {
		return false, err
	}
	if ans.none {
		return false, fmt.Errorf("%w: %s user: the check's answer is empty", ErrReply, s.strategy)
	}
	// Python's str.lower and Go's strings.ToLower agree on whether "true"
	// appears: no other character lowers to t, r, u or e in either.
	return strings.Contains(strings.ToLower(ans.s), "true"), nil
}

// reflect is the reference's reflect(): the text after the answer's
// "Response:", which must occur exactly once.
func (s *Simulator) reflect(ctx context.Context, response text, msgs []message, id string) (string, error) {
	prompt, err := s.render("user_reflect", CheckData{Transcript: transcript(msgs), Response: response.str()})
	if err != nil {
		return "", err
	}
	ans, err := s.ask(ctx, []message{{role: "user", content: text{s: prompt}}}, id)
	if err != nil {
		return "", err
	}
	if ans.none {
		return "", fmt.Errorf("%w: reflection user: the reflection is empty", ErrReply)
	}
	parts := strings.Split(ans.s, "Response:")
	if len(parts) != 2 {
		return "", fmt.Errorf("%w: reflection user: %d \"Response:\" in the reflection, want 1: %s", ErrReply, len(parts)-1, clip(ans.s))
	}
	return pyStrip(parts[1]), nil
}

// parseReAct is ReactUserSimulationEnv.parse_response.
func parseReAct(t text) (text, error) {
	if t.none {
		return text{}, fmt.Errorf("%w: react user: an empty reply", ErrReply)
	}
	r := t.s
	if strings.Contains(r, Stop) {
		return text{s: Stop}, nil
	}
	for _, label := range []string{"Thought:", "User Response:"} {
		if !strings.Contains(r, label) {
			continue
		}
		parts := strings.Split(r, label)
		if len(parts) != 2 {
			return text{}, fmt.Errorf("%w: react user: %q %d times in the reply: %s", ErrReply, label, len(parts)-1, clip(r))
		}
		return text{s: pyStrip(parts[1])}, nil
	}
	return text{}, fmt.Errorf("%w: react user: no \"Thought:\" or \"User Response:\" in the reply: %s", ErrReply, clip(r))
}

// ask sends one request and returns its first choice's content.
func (s *Simulator) ask(ctx context.Context, msgs []message, id string) (text, error) {
	req := llm.Request{Messages: make([]llm.Message, len(msgs)), Purpose: Purpose, Call: id}
	for i, m := range msgs {
		req.Messages[i] = llm.Message{Role: m.role, Content: m.content.s}
	}
	s.calls++
	resp, err := s.sampler.Sample(ctx, req)
	if err != nil {
		return text{}, fmt.Errorf("user call %s: %w", id, err)
	}
	if len(resp.Choices) == 0 {
		return text{}, fmt.Errorf("%w: user call %s: no choices", ErrReply, id)
	}
	c := resp.Choices[0].Content
	return text{s: c, none: c == ""}, nil
}

func (s *Simulator) render(name string, data any) (string, error) {
	out, err := s.lib.Render(Folder+"/"+name, data)
	if err != nil {
		return "", fmt.Errorf("user: %w", err)
	}
	return out, nil
}

// transcript is the reference's transcript of msgs.
func transcript(msgs []message) string {
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		lines[i] = roleLabel(m.role) + ": " + m.content.str()
	}
	return strings.Join(lines, "\n")
}

// roleLabel is the reference's map_role_label: the simulator's user turns
// are the agent's words, yet labelled "Customer", as there.
func roleLabel(role string) string {
	switch role {
	case "user":
		return "Customer"
	case "assistant":
		return "Agent"
	}
	return pyCapitalize(role)
}

// pyCapitalize is Python's str.capitalize: the first character in title
// case, the rest lower-cased.
func pyCapitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToTitle(r)) + strings.ToLower(s[n:])
}

// pyStrip is Python's str.strip(): str.isspace also counts the
// separators U+001C..U+001F, which unicode.IsSpace does not.
func pyStrip(s string) string {
	return strings.TrimFunc(s, pyIsSpace)
}

func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// clip shortens a reply quoted in an error.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}
