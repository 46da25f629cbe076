package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
)

// Defaults of a verifier's request encoding.
const (
	// DefaultSep is Qwen2.5-Math-PRM's step tag, which its model card and
	// vLLM's step pooler use: each step is followed by it.
	DefaultSep = "<extra_0>"
	// DefaultSystem is the system turn Qwen's math reward models were
	// trained under (their model cards' usage); a reward model scores the
	// conversation it was trained on, so --verifier-system changes it for
	// another model.
	DefaultSystem = "Please reason step by step, and put your final answer within \\boxed{}."
	// JudgeTemplate is the llm verifier's prompt (prompts/verify/judge.txt).
	JudgeTemplate = "verify/judge"
	// judgeMaxTokens bounds a generative verifier's answer: one word is
	// asked for, and P("Yes") is read at the first token.
	judgeMaxTokens = 8
	// judgeTopLogprobs is how many alternatives of the first token are
	// asked for: enough for "Yes", "No" and their spellings.
	judgeTopLogprobs = 5
)

// Purpose is the purpose every verifier call is recorded under.
const Purpose = "verify"

// Options configure a verifier.
type Options struct {
	Kind string // PRM, ORM or LLM
	// Sep joins a prm's steps, each step followed by it (DefaultSep when "").
	Sep string
	// System is a reward model's system turn (DefaultSystem when ""; "-" for none).
	System string
	// Samples is how many answers an llm verifier asks for in its one
	// request (at least 1): the score is the mean P("Yes") of the answers
	// whose first token came with log probabilities, else the fraction
	// saying Yes.
	Samples int
	// Prompts holds the llm verifier's template (JudgeTemplate).
	Prompts *prompts.Library
}

// Model is a Verifier whose every call is one llm.Request to a sampler:
// the engine's per-item chain records, identifies, caches and costs it like
// any model call. A prm or orm request carries llm.Request.Reward and is
// answered by a reward backend (Pooling, the simulated verifier) with the
// scores as a JSON array in the first choice; an llm request is an
// ordinary chat request.
type Model struct {
	s llm.Sampler
	o Options
}

var _ Verifier = (*Model)(nil)

// New returns the verifier of kind o.Kind over s.
func New(s llm.Sampler, o Options) (*Model, error) {
	if !slices.Contains(Kinds, o.Kind) {
		return nil, fmt.Errorf("verifier kind %q: want one of %s", o.Kind, strings.Join(Kinds, ", "))
	}
	if o.Sep == "" {
		o.Sep = DefaultSep
	}
	if o.System == "" {
		o.System = DefaultSystem
	}
	o.Samples = max(o.Samples, 1)
	if o.Kind == LLM {
		if o.Prompts == nil {
			return nil, errors.New("llm verifier: no prompt library")
		}
		if _, ok := o.Prompts.Text(JudgeTemplate); !ok {
			return nil, fmt.Errorf("llm verifier: no template %s", JudgeTemplate)
		}
	}
	return &Model{s: s, o: o}, nil
}

// Kind is the verifier's kind.
func (m *Model) Kind() string { return m.o.Kind }

// Verify scores one solution with one call.
func (m *Model) Verify(ctx context.Context, req Request) (Scores, error) {
	lr, err := m.Encode(req)
	if err != nil {
		return nil, err
	}
	resp, err := m.s.Sample(ctx, lr)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", req.Call, err)
	}
	return m.Decode(req, resp)
}

// Encode is the llm.Request of a verification.
func (m *Model) Encode(req Request) (llm.Request, error) {
	if req.Call == "" {
		return llm.Request{}, errors.New("verify: the request has no call identity")
	}
	if len(req.Steps) == 0 {
		return llm.Request{}, fmt.Errorf("verify %s: no steps to score", req.Call)
	}
	if m.o.Kind == LLM {
		text, err := m.o.Prompts.Render(JudgeTemplate, map[string]string{
			"Problem": req.Problem, "Solution": strings.Join(req.Steps, "\n")})
		if err != nil {
			return llm.Request{}, fmt.Errorf("verify %s: %w", req.Call, err)
		}
		return llm.Request{Messages: []llm.Message{{Role: "user", Content: text}}, N: m.o.Samples,
			MaxTokens: judgeMaxTokens, TopLogprobs: judgeTopLogprobs, Purpose: Purpose, Call: req.Call}, nil
	}
	var msgs []llm.Message
	if m.o.System != "-" {
		msgs = append(msgs, llm.Message{Role: "system", Content: m.o.System})
	}
	msgs = append(msgs, llm.Message{Role: "user", Content: req.Problem},
		llm.Message{Role: "assistant", Content: m.Join(req.Steps)})
	r := &llm.Reward{Kind: m.o.Kind}
	if m.o.Kind == PRM {
		r.Sep = m.o.Sep
	}
	return llm.Request{Messages: msgs, Purpose: Purpose, Call: req.Call, Reward: r}, nil
}

// Join lays a solution out for a reward model: for a prm each step
// followed by the separator, for an orm the steps on lines. A separator a
// step itself contains is removed from it (model text is hostile: it must
// not add steps the reward model would score).
func (m *Model) Join(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		s = strings.ReplaceAll(s, m.o.Sep, "")
		if m.o.Kind != PRM {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
			continue
		}
		b.WriteString(s)
		b.WriteString(m.o.Sep)
	}
	return b.String()
}

// Decode reads a verification's scores from its response.
func (m *Model) Decode(req Request, resp llm.Response) (Scores, error) {
	if m.o.Kind == LLM {
		return Scores{JudgeScore(resp)}, nil
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("verify %s: the reward model returned no scores", req.Call)
	}
	s, err := ParseScores(resp.Choices[0].Content)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", req.Call, err)
	}
	if m.o.Kind == ORM {
		return Scores{s[len(s)-1]}, nil
	}
	if len(s) != len(req.Steps) {
		return nil, fmt.Errorf("verify %s: the reward model returned %d step scores for %d steps (is --verifier-sep %q the model's step tag, and its server's step pooler set to it?)",
			req.Call, len(s), len(req.Steps), m.o.Sep)
	}
	return s, nil
}

// ParseScores reads a reward backend's answer: a non-empty JSON array of
// numbers in [0,1].
func ParseScores(content string) (Scores, error) {
	var s Scores
	if err := json.Unmarshal([]byte(content), &s); err != nil {
		return nil, fmt.Errorf("reward scores %.60q: want a JSON array of numbers", content)
	}
	if len(s) == 0 {
		return nil, errors.New("reward scores: empty")
	}
	for _, v := range s {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("reward score %v: want a number in [0,1]", v)
		}
	}
	return s, nil
}

// JudgeScore is a generative verifier's P("Yes"): the mean over the
// choices of P(Yes)/(P(Yes)+P(No)) at the first token where the server
// returned log probabilities with Yes or No among the alternatives, else
// 1 for an answer whose first word is yes and 0 otherwise (a vote). An
// answer that is neither (empty, garbled) counts as No.
func JudgeScore(resp llm.Response) float64 {
	if len(resp.Choices) == 0 {
		return 0
	}
	total := 0.0
	for _, c := range resp.Choices {
		if p, ok := yesProb(c.Logprobs); ok {
			total += p
			continue
		}
		if firstWord(c.Content) == "yes" {
			total++
		}
	}
	return total / float64(len(resp.Choices))
}

// yesProb reads P(Yes) at the first content token that is not blank.
func yesProb(ls []llm.TokenLogprob) (float64, bool) {
	for _, l := range ls {
		if strings.TrimSpace(l.Token) == "" {
			continue
		}
		alts := l.Top
		if len(alts) == 0 {
			alts = []llm.TopLogprob{{Token: l.Token, Logprob: l.Logprob}}
		}
		yes, no := 0.0, 0.0
		for _, a := range alts {
			if math.IsNaN(a.Logprob) || a.Logprob > 0 {
				continue
			}
			switch firstWord(a.Token) {
			case "yes":
				yes += math.Exp(a.Logprob)
			case "no":
				no += math.Exp(a.Logprob)
			}
		}
		if yes+no == 0 {
			return 0, false
		}
		return yes / (yes + no), true
	}
	return 0, false
}

// firstWord is a text's first word in lower case, without punctuation.
func firstWord(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}
