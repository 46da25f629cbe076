// Package debate is the simulated debater of multi-agent debate: an agent
// that, shown the other agents' answers, either takes the answer most of
// them hold (with probability Params.Conformity) or works the problem out
// again as at first, and asked alone to check its answer, stands by it.
// It reads only the conversation: its own earlier answer, the others'
// answers quoted between ``` marks, and the first user message, which the
// task's responders answer afresh.
package debate

import (
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the debate prompts: the bundled templates and the
// reference's both say the answers come "from other agents"; a lone
// agent is asked to check (ours) or double check (the reference's).
const (
	markerOthers = "from other agents"
	markerAlone  = "Check your answer above once more"
	markerDouble = "double check"
	markerJudge  = "You are the judge of a debate"
	headerRound  = "\nRound "
)

// Responder answers debate turns, and leaves the first round's prompt to
// the task's responders (Inner), which it also asks when it works a
// problem out again.
type Responder struct {
	Inner []sim.Responder
}

// New returns a debater over the task responders.
func New(inner ...sim.Responder) Responder { return Responder{Inner: inner} }

// Respond answers a debate turn: a conversation whose last user message
// shows the others' answers or asks to check, after an answer of its own.
func (r Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if c, ok := judge(p, rng, params); ok {
		return c, true
	}
	n := len(p.Messages)
	if n < 3 || p.Messages[n-1].Role != "user" || p.Messages[n-2].Role != "assistant" {
		return llm.Choice{}, false
	}
	last := p.Messages[n-1].Content
	own := p.Messages[n-2].Content
	switch {
	case strings.Contains(last, markerOthers):
		others := Quoted(last)
		if len(others) == 0 {
			return llm.Choice{}, false
		}
		if rng.Float64() < params.Conformity {
			return llm.Choice{Content: Plurality(own, others)}, true
		}
		return llm.Choice{Content: r.afresh(p, rng, params, own)}, true
	case strings.Contains(last, markerAlone) || strings.Contains(strings.ToLower(last), markerDouble):
		return llm.Choice{Content: own}, true
	}
	return llm.Choice{}, false
}

// judge answers the debate's judge prompt: the answer most agents hold in
// the last round (ties to the first agent's), or with probability
// Misjudge another agent's answer of that round, copied as written.
func judge(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content, markerJudge) {
		return llm.Choice{}, false
	}
	text := p.Messages[0].Content
	i := strings.LastIndex(text, headerRound)
	if i < 0 {
		return llm.Choice{}, false
	}
	last := Quoted(text[i:])
	if len(last) == 0 {
		return llm.Choice{}, false
	}
	pick := Plurality(last[0], last[1:])
	if len(last) > 1 && rng.Float64() < params.Misjudge {
		var others []string
		for _, a := range last {
			if Key(a) != Key(pick) {
				others = append(others, a)
			}
		}
		if len(others) > 0 {
			pick = others[rng.IntN(len(others))]
		}
	}
	return llm.Choice{Content: pick}, true
}

// afresh answers the first user message again, as a new first-round
// answer; own when no task responder knows it.
func (r Responder) afresh(p sim.Prompt, rng *rand.Rand, params sim.Params, own string) string {
	for _, m := range p.Messages {
		if m.Role != "user" {
			continue
		}
		q := sim.Prompt{Messages: []llm.Message{m}, Temperature: p.Temperature, Stop: p.Stop}
		for _, in := range r.Inner {
			if c, ok := in.Respond(q, rng, params); ok && c.Content != "" {
				return c.Content
			}
		}
		break
	}
	return own
}

// Quoted returns the texts between pairs of ``` marks, in order.
func Quoted(text string) []string {
	parts := strings.Split(text, "```")
	var out []string
	for i := 1; i+1 < len(parts); i += 2 {
		out = append(out, strings.Trim(parts[i], "\n"))
	}
	return out
}

// Plurality returns the answer text whose final answer most of own and
// others hold; ties go to own, then to the others in order.
func Plurality(own string, others []string) string {
	all := append([]string{own}, others...)
	count := map[string]int{}
	for _, a := range all {
		count[Key(a)]++
	}
	best := 0
	for i, a := range all {
		if count[Key(a)] > count[Key(all[best])] {
			best = i
		}
	}
	return all[best]
}

var (
	boxed  = regexp.MustCompile(`\\boxed\{([^{}]*)\}`)
	number = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?`)
)

// Key is what the debater reads as an answer's final answer: the last
// \boxed{} content, else the last line starting "Answer:", else the last
// number, else the last line; lower case without spaces, commas or $.
func Key(text string) string {
	var k string
	if m := boxed.FindAllStringSubmatch(text, -1); len(m) > 0 {
		k = m[len(m)-1][1]
	} else if i := strings.LastIndex(text, "Answer:"); i >= 0 {
		k, _, _ = strings.Cut(text[i+len("Answer:"):], "\n")
	} else if m := number.FindAllString(text, -1); len(m) > 0 {
		k = m[len(m)-1]
	} else {
		lines := strings.Split(strings.TrimSpace(text), "\n")
		k = lines[len(lines)-1]
	}
	k = strings.ToLower(strings.TrimRight(strings.TrimSpace(k), "."))
	return strings.NewReplacer(" ", "", ",", "", "$", "").Replace(k)
}
