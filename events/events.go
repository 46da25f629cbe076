// Package events is the typed record of what happened in an item: its
// model calls, tool calls, simulated user's turns, verifier scores and
// verdict, each with the step of the strategy's program it belongs to.
// The engine writes an item's events as they happen (a Log per item) and
// the store keeps them with the item's calls; the read side (reports, the
// viewer, exports, OpenTelemetry traces) reads them without decoding any
// strategy's detail. It is a leaf: it imports only the standard library.
package events

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Kind says what an event records.
type Kind uint8

// The kinds of event, in the order a step's events of different kinds
// take when their order is not given by the strategy (Compare).
const (
	Model    Kind = iota + 1 // a model call of a role
	Tool                     // a call to a tool of the run's (MCP)
	User                     // a simulated user's turn in an episode
	Verifier                 // a verifier's scores of a candidate
	Verdict                  // the item's verdict
)

var kindNames = [...]string{Model: "model", Tool: "tool", User: "user", Verifier: "verifier", Verdict: "verdict"}

// Kinds lists every kind, in order.
var Kinds = []Kind{Model, Tool, User, Verifier, Verdict}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.valid() {
		return nil, fmt.Errorf("unknown event kind %d", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n != "" && n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event kind %q", b)
}

func (k Kind) valid() bool { return k >= Model && k <= Verdict }

// Event is one thing that happened in an item. Which fields are set
// depends on the kind; the rest are zero.
type Event struct {
	Kind Kind `json:"kind"`
	// Step is where in the strategy's program it happened: the step the
	// strategy declared (WithStep), else a model or verifier call's
	// identity without its last part ("t0/s3/react" → "t0/s3"); "" for
	// the item as a whole.
	Step string `json:"step,omitempty"`
	// Seq orders the events of a declared step as they happened (0, 1,
	// ...); 0 in steps the strategy did not declare.
	Seq int `json:"seq,omitempty"`
	// Call is the event's identity: a model or verifier call's identity
	// (llm.Request.Call), a tool call's (server/tool/<args digest>#k).
	Call string `json:"call,omitempty"`

	// Role is a model call's role: model, judge, verifier, user or
	// "agent MODEL@NAME" (bench's roles).
	Role string `json:"role,omitempty"`
	// CallID is the stored call record of a model call (store.Call.ID),
	// whose fields below the store fills when it reads the event: the
	// event itself keeps only what the record lacks.
	CallID int64 `json:"call_id,omitempty"`
	// Time is when a model call's record was made (as it ended), from the
	// call record; zero for other events, whose times are not kept.
	Time             time.Time `json:"time,omitzero"`
	Purpose          string    `json:"purpose,omitempty"`
	PromptTokens     int       `json:"prompt_tokens,omitempty"`
	CompletionTokens int       `json:"completion_tokens,omitempty"`
	ReasoningTokens  int       `json:"reasoning_tokens,omitempty"`
	Requests         int       `json:"requests,omitempty"`
	Cost             float64   `json:"cost,omitempty"`

	// LatencyMS is a model or tool call's latency (a replayed call keeps
	// the original's); Cached says a model call was answered by the
	// response cache or a tool call replayed from the tool cache; Error
	// is why a model or tool call failed.
	LatencyMS float64 `json:"latency_ms,omitempty"`
	Cached    bool    `json:"cached,omitempty"`
	Error     string  `json:"error,omitempty"`

	// Server, Tool, Arguments and Result are a tool call's.
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`

	// Text is a user turn's message.
	Text string `json:"text,omitempty"`

	// Scores are a verifier's scores of one candidate (one per step for a
	// process reward model).
	Scores []float64 `json:"scores,omitempty"`

	// Correct, Score and Answer are a verdict's: the item's verdict, its
	// score in [0,1] and the answer the task extracted.
	Correct bool    `json:"correct,omitempty"`
	Score   float64 `json:"score,omitempty"`
	Answer  string  `json:"answer,omitempty"`
}

// Tokens are a model call's prompt and completion tokens.
func (e Event) Tokens() int { return e.PromptTokens + e.CompletionTokens }

// Recorder receives an item's events as they happen (strategies.Env's
// Events): a strategy records what only it sees (a simulated user's turn).
type Recorder interface {
	Record(ctx context.Context, e Event)
}

type stepKey struct{}

// WithStep declares that what ctx's holder does next belongs to step (a
// trajectory's turn "t0/s3"): the model calls, tool calls and user turns
// made under it take that step and are numbered in the order they happen.
// Declare a step only around code that makes its calls one after another.
func WithStep(ctx context.Context, step string) context.Context {
	return context.WithValue(ctx, stepKey{}, step)
}

// StepOf is the step ctx declares, if any.
func StepOf(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(stepKey{}).(string)
	return s, ok
}

// StepOfCall is the step of a call identity: the identity without its
// last part ("s2/f1/propose" → "s2/f1", "bon" → "").
func StepOfCall(call string) string {
	if i := strings.LastIndexByte(call, '/'); i >= 0 {
		return call[:i]
	}
	return ""
}

// Log is one item's events as they arrive, until they are stored: safe
// for concurrent use. It gives each event its step (declared, else its
// call's) and numbers the events of each declared step in arrival order.
// The zero Log is ready to use; a nil *Log records nothing.
type Log struct {
	mu      sync.Mutex
	next    map[string]int
	pending []Event
}

// Stamp fills e's step and sequence number as of now, without keeping it
// (a model call's event is kept with its call record).
func (l *Log) Stamp(ctx context.Context, e Event) Event {
	if l == nil {
		return e
	}
	step, declared := StepOf(ctx)
	if !declared {
		// A call identity names its place in the strategy's program; a
		// tool call's (server/tool/<digest>#k) does not: it stays with
		// the item.
		if e.Step == "" && (e.Kind == Model || e.Kind == Verifier) {
			e.Step = StepOfCall(e.Call)
		}
		e.Seq = 0
		return e
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.next == nil {
		l.next = map[string]int{}
	}
	e.Step, e.Seq = step, l.next[step]
	l.next[step]++
	return e
}

// Record stamps e and keeps it until Take.
func (l *Log) Record(ctx context.Context, e Event) {
	if l == nil {
		return
	}
	e = l.Stamp(ctx, e)
	l.mu.Lock()
	l.pending = append(l.pending, e)
	l.mu.Unlock()
}

// Take returns the events kept since the last Take and forgets them.
func (l *Log) Take() []Event {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.pending
	l.pending = nil
	return out
}

// Return gives back events Take returned that could not be stored, to be
// taken again.
func (l *Log) Return(evs []Event) {
	if l == nil || len(evs) == 0 {
		return
	}
	l.mu.Lock()
	l.pending = append(evs, l.pending...)
	l.mu.Unlock()
}

// Compare orders events as the item's record lists them, the same at any
// concurrency and on a rerun: the verdict last; then by step (digit runs
// compared as numbers, so s10 follows s9); within a declared step in the
// order its events happened (Seq); then by kind, then by identity. It
// never looks at when an event arrived.
func Compare(a, b Event) int {
	if c := cmp.Compare(boolInt(a.Kind == Verdict), boolInt(b.Kind == Verdict)); c != 0 {
		return c
	}
	if c := Natural(a.Step, b.Step); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return Natural(a.Call, b.Call)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Natural compares strings with their digit runs compared as numbers:
// "s2/f10" after "s2/f9".
func Natural(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
