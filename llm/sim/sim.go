// Package sim is the built-in simulated language model: a seeded, stochastic
// stand-in with explicit noise parameters, so every strategy runs offline.
//
// It is not a lookup of answers. Each task has a Responder under simulator/
// (simulator.New assembles them) that reads the prompt the way a model would
// (the puzzle or question is in the text), works out an answer with what a
// model plausibly knows (Game of 24's arithmetic, the passages shown), and
// then degrades it with the noise parameters below. This package is the
// core they share. Its results are always labelled simulated.
//
// Randomness comes only from the request: a hash of the messages and tools,
// and the request's seed plus the choice index (choice i of a request with
// seed s draws from seed s+i). So a request for n choices and n requests for
// one choice with seeds s..s+n-1 give the same answers, in process or over
// HTTP.
package sim

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
)

// Params are the simulator's noise parameters; they are recorded with every
// run that uses it.
type Params struct {
	// Skill is the probability that a reasoning step is chosen well: a move
	// that keeps a puzzle solvable, a search for the right document.
	Skill float64 `json:"skill" yaml:"skill"`
	// Slip is the probability that a step's content is wrong anyway: an
	// arithmetic mistake, a misread fact.
	Slip float64 `json:"slip" yaml:"slip"`
	// Misjudge is the probability that an evaluation (value, vote,
	// self-check) is wrong.
	Misjudge float64 `json:"misjudge" yaml:"misjudge"`
	// Boost is how much a reflection or feedback that names the failure
	// raises Skill on the next attempt (absolute, capped at 1).
	Boost float64 `json:"boost" yaml:"boost"`
	// Focus is how strongly the model repeats itself across samples: each
	// choice among options is drawn with weight 1/rank^Focus over a fixed
	// ranking of the options (a model's prior taste), so 0 is uniform and
	// larger values make samples agree more, right or wrong.
	Focus float64 `json:"focus" yaml:"focus"`
	// VerifyFlip is the probability that the simulated verifier
	// (simulator/verifier) misreads a step it re-checks: a right step
	// judged wrong or a wrong one right.
	VerifyFlip float64 `json:"verify_flip" yaml:"verify_flip"`
	// VerifySpread is how far the simulated verifier's scores scatter
	// around its verdict (the half-width of a uniform spread, in score
	// units): 0 gives exactly 0.9 for a step judged right and 0.1 for one
	// judged wrong.
	VerifySpread float64 `json:"verify_spread" yaml:"verify_spread"`
	// Conformity is the probability that a debating agent, shown the
	// other agents' answers, takes the answer most of them (and it) hold
	// instead of working the problem out again (simulator/debate).
	Conformity float64 `json:"conformity" yaml:"conformity"`
}

// Defaults of the verifier's parameters, which were added after runs
// were recorded: left at them, they are left out of the parameters' JSON
// (config keys, cache identities and stored sim_params of earlier runs are
// unchanged), and a record without them reads as them.
const (
	DefaultVerifyFlip   = 0.1
	DefaultVerifySpread = 0.15
	DefaultConformity   = 0.5
)

// MarshalJSON leaves the parameters added after runs were recorded (the
// verifier's, conformity) out at their defaults.
func (p Params) MarshalJSON() ([]byte, error) {
	type plain Params
	out := struct {
		plain
		VerifyFlip   *float64 `json:"verify_flip,omitempty"`
		VerifySpread *float64 `json:"verify_spread,omitempty"`
		Conformity   *float64 `json:"conformity,omitempty"`
	}{plain: plain(p)}
	if p.VerifyFlip != DefaultVerifyFlip {
		out.VerifyFlip = &p.VerifyFlip
	}
	if p.VerifySpread != DefaultVerifySpread {
		out.VerifySpread = &p.VerifySpread
	}
	if p.Conformity != DefaultConformity {
		out.Conformity = &p.Conformity
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads absent verifier parameters as their defaults.
func (p *Params) UnmarshalJSON(b []byte) error {
	type plain Params
	q := plain{VerifyFlip: DefaultVerifyFlip, VerifySpread: DefaultVerifySpread, Conformity: DefaultConformity}
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*p = Params(q)
	return nil
}

// DefaultParams are the defaults of bench's --sim-* flags.
//
// Focus 2 matches how repetitive GPT-4's published chain-of-thought samples
// on Game of 24 puzzles 900-919 are (about 52 distinct answers per 100
// samples, the commonest taking 16%); the others are a middling model.
func DefaultParams() Params {
	return Params{Skill: 0.5, Slip: 0.1, Misjudge: 0.15, Boost: 0.15, Focus: 2,
		VerifyFlip: DefaultVerifyFlip, VerifySpread: DefaultVerifySpread, Conformity: DefaultConformity}
}

// Validate checks that every parameter is a probability.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"skill", p.Skill}, {"slip", p.Slip}, {"misjudge", p.Misjudge}, {"boost", p.Boost}, {"verify_flip", p.VerifyFlip}, {"conformity", p.Conformity}} {
		if f.v < 0 || f.v > 1 {
			return fmt.Errorf("sim %s=%v: must be between 0 and 1", f.name, f.v)
		}
	}
	if p.VerifySpread < 0 || p.VerifySpread > 0.4 {
		return fmt.Errorf("sim verify_spread=%v: must be between 0 and 0.4 (scores stay in [0,1])", p.VerifySpread)
	}
	if p.Focus < 0 || p.Focus > 10 {
		return fmt.Errorf("sim focus=%v: must be between 0 and 10", p.Focus)
	}
	return nil
}

// Pick draws an index in [0, n) with weight 1/(rank+1)^focus, where rank
// orders the options by a hash of taste (a stable description of the choice
// being made) and each option's label: the same options in the same
// situation are always ranked alike, whatever the sample. focus 0 is uniform.
func Pick(rng *rand.Rand, focus float64, taste string, labels []string) int {
	if len(labels) == 0 {
		return -1
	}
	return Rank(taste, labels)[PickRank(rng, focus, len(labels))]
}

// Rank returns the option indexes in the simulator's stable order of
// preference for this taste: Pick's ranking, for callers that memoise it.
func Rank(taste string, labels []string) []int {
	type ranked struct {
		i int
		h uint64
	}
	rs := make([]ranked, len(labels))
	for i, l := range labels {
		h := fnv.New64a()
		h.Write([]byte(taste))
		h.Write([]byte{0})
		h.Write([]byte(l))
		rs[i] = ranked{i, h.Sum64()}
	}
	slices.SortFunc(rs, func(a, b ranked) int { return cmp.Compare(a.h, b.h) })
	order := make([]int, len(rs))
	for r, x := range rs {
		order[r] = x.i
	}
	return order
}

// PickRank draws a rank in [0, n) with weight 1/(rank+1)^focus.
func PickRank(rng *rand.Rand, focus float64, n int) int {
	if n <= 1 || focus == 0 {
		if n <= 0 {
			return -1
		}
		return rng.IntN(n)
	}
	total := 0.0
	for r := range n {
		total += math.Pow(float64(r+1), -focus)
	}
	x := rng.Float64() * total
	for r := range n {
		w := math.Pow(float64(r+1), -focus)
		if x < w {
			return r
		}
		x -= w
	}
	return n - 1
}

// Which returns the first of markers that text contains, or "": how a
// responder tells which of its prompts it is reading.
func Which(text string, markers ...string) string {
	for _, m := range markers {
		if strings.Contains(text, m) {
			return m
		}
	}
	return ""
}

// Prompt is what a responder sees of a request.
type Prompt struct {
	Messages    []llm.Message
	Tools       []llm.ToolSpec
	Temperature float64
	Stop        []string
	// Reward is set when a reward model is asked to score the
	// conversation (llm.Request.Reward): the simulated verifier answers.
	Reward *llm.Reward
	// TopLogprobs is how many alternatives per token the request asked
	// for (0: none; a responder gives log probabilities only when asked).
	TopLogprobs int
}

// Last returns the content of the last message with the given role.
func (p Prompt) Last(role string) string {
	for i := len(p.Messages) - 1; i >= 0; i-- {
		if p.Messages[i].Role == role {
			return p.Messages[i].Content
		}
	}
	return ""
}

// Text returns all message contents joined, for responders that read the
// whole conversation.
func (p Prompt) Text() string {
	var b strings.Builder
	for _, m := range p.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// Responder answers the prompts of one task. Respond returns ok=false when
// the prompt is not one it recognises.
type Responder interface {
	Respond(p Prompt, rng *rand.Rand, params Params) (llm.Choice, bool)
}

// Model is the simulated model. It implements llm.Sampler.
type Model struct {
	params     Params
	responders []Responder
}

// New returns a simulated model answering with the given responders, tried
// in order.
func New(p Params, rs ...Responder) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Model{params: p, responders: rs}, nil
}

// Params returns the model's noise parameters.
func (m *Model) Params() Params { return m.params }

// Fallback is what the simulator says to a prompt no responder recognises,
// as a confused model would.
const Fallback = "I am not sure how to answer this."

// Sample answers every choice of the request independently.
func (m *Model) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if len(req.Messages) == 0 {
		return llm.Response{}, errors.New("sim: request has no messages")
	}
	temp := req.TemperatureOr(llm.DefaultTemperature) // unsent: the default, as a server would
	p := Prompt{Messages: req.Messages, Tools: req.Tools, Temperature: temp, Stop: req.Stop, Reward: req.Reward, TopLogprobs: req.TopLogprobs}
	base := promptHash(req)
	resp := llm.Response{Model: "sim", Usage: llm.Usage{Requests: 1, PromptTokens: countTokens(p.Text())}}
	for i := range req.Samples() {
		seed := uint64(req.Seed)
		if temp > 0 { // greedy decoding repeats itself
			seed += uint64(i)
		}

		rng := rand.New(rand.NewPCG(base, seed))
		c := llm.Choice{Content: Fallback, FinishReason: "stop"}
		for _, r := range m.responders {
			if got, ok := r.Respond(p, rng, m.params); ok {
				c = got
				break
			}
		}
		c.Index = i
		c.Content = cutAtStop(c.Content, req.Stop)
		if req.Reward != nil { // a reward model reads; it writes nothing
			resp.Choices = append(resp.Choices, c)
			continue
		}
		if len(c.ToolCalls) > 0 {
			c.FinishReason = "tool_calls"
		} else if c.FinishReason == "" {
			c.FinishReason = "stop"
		}
		resp.Choices = append(resp.Choices, c)
		resp.Usage.CompletionTokens += countTokens(c.Content) + countTokens(c.Reasoning)
		for _, tc := range c.ToolCalls {
			resp.Usage.CompletionTokens += countTokens(tc.Name + tc.Arguments)
		}
	}
	return resp, nil
}

// promptHash folds everything a model conditions on into 64 bits.
func promptHash(req llm.Request) uint64 {
	h := fnv.New64a()
	for _, m := range req.Messages {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
		h.Write([]byte{0})
		for _, tc := range m.ToolCalls {
			h.Write([]byte(tc.Name + "\x00" + tc.Arguments + "\x00"))
		}
	}
	if len(req.Tools) > 0 {
		b, _ := json.Marshal(req.Tools)
		h.Write(b)
	}
	var t [8]byte
	binary.LittleEndian.PutUint64(t[:], uint64(req.TemperatureOr(llm.DefaultTemperature)*1e6))
	h.Write(t[:])
	return h.Sum64()
}

// cutAtStop truncates at the first stop sequence, as servers do (the stop
// string itself is not returned).
func cutAtStop(s string, stop []string) string {
	cut := len(s)
	for _, st := range stop {
		if st == "" {
			continue
		}
		if i := strings.Index(s, st); i >= 0 && i < cut {
			cut = i
		}
	}
	return s[:cut]
}

// countTokens approximates a BPE tokenizer: about four characters a token,
// and at least one token a word.
func countTokens(s string) int {
	if s == "" {
		return 0
	}
	words := len(strings.Fields(s))
	chars := (len(s) + 3) / 4
	return max(words, chars)
}
