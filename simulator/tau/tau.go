// Package tau is the simulated model's answer to τ-bench's episodes
// (tasks with a simulated user: the airline and retail domains). It plays
// both roles, telling them apart by the request's shape alone:
//
//   - the agent: the system turn is a domain's policy ("# Airline Agent
//     Policy", "# Retail agent policy"), in the tools protocol (the
//     request's tools) or a text protocol (the policy, "#Available tools",
//     the tools as JSON and an instruction: xml if it shows "<tool_name>",
//     react if it shows "Thought:", else act);
//   - the user: a system turn carrying "###STOP###" and, once the task
//     has started, "Instruction: ..."; a react user's prompt asks for
//     "User Response:";
//   - the verify user's supervisor ("You are a supervisor of the Agent",
//     "Classification:") and its reflection ("Reflection:").
//
// Both are declared, weak, prompt-only policies. Neither reads task data,
// gold actions or files: the agent knows what the conversation shows (the
// user's words, the tools' results), the user what its instruction says.
// Neither keeps state: each reply is worked out again from the
// conversation, which is the only memory.
//
// The agent (agent.go, airline.go, retail.go) reads the policy as a weak
// model would: it identifies the user (airline: the user id; retail: email,
// or name and zip code), picks the user's requests from their words
// (cancel, book, change flights or cabin, baggage, passengers,
// compensation; cancel, return, exchange, modify items, address or
// payment), looks up the profile and the reservation or order before
// writing, fills the write's arguments from the user's words and the
// lookups, lists the action with its exact arguments and writes only after
// the user's explicit yes, then says what happened. What it cannot handle
// it transfers to a human agent. Its noise:
//
//   - Skill: at every choice between candidates (which reservation or
//     order, which items, which new variant or flight, which payment
//     method) the considered one is taken with probability Skill, else
//     another by Focus; a policy check (is the cancellation allowed, is the
//     order still pending) is made with probability Skill, else skipped;
//   - Slip: each tool call has one argument misread with probability Slip
//     (a digit of an id, a count, another enum value);
//   - in the text protocols (act, react, xml) a tool call is written
//     malformed with probability Slip/2: a closing brace lost (the episode
//     loop says the text to the user) or the tool's closing tag lost (the
//     loop reads its first parameter as a call of an unknown tool); native
//     tool calls are always well-formed, as the API's function calling
//     returns them.
//
// The user (user.go) splits its instruction into sentences: who it is
// (user id, name, zip code, email), what it wants (sentences with a request
// verb), conditions ("If ...") and its persona, which it never says. It
// opens with the kind of its first request only ("I'd like to cancel a
// reservation."), gives a fact when the agent asks for it (or says it
// does not remember it), says its next request in its own words (the
// instruction's sentence, in the first person) when the agent asks what
// else, answers yes to a confirmation that names a request of its
// instruction, reveals a condition when the agent refuses, and ends with
// "###STOP###" when each request was reported done or refused, or when it
// is transferred. Its noise: a fact it gives is misstated (a digit) with
// probability Slip, a confirmation is judged wrongly with probability
// Misjudge.
//
// The supervisor of the verify and reflection users judges the response
// satisfactory (one line, ###STOP### alone) with probability 1-Misjudge.
package tau

import (
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers by which the roles are recognised.
const (
	airlinePolicy = "# airline agent policy"
	retailPolicy  = "# retail agent policy"
	toolsHeader   = "#Available tools"
	xmlMarker     = "<tool_name>"
	reactMarker   = "Thought:"
	stopMarker    = "###STOP###"
	reactUser     = "User Response:"
)

// Responder answers τ-bench's agent, user and supervisor prompts.
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if len(p.Messages) == 0 || p.Reward != nil {
		return llm.Choice{}, false
	}
	first := p.Messages[0]
	if first.Role == "system" {
		if domain := policyDomain(first.Content); domain != "" {
			return respondAgent(p, domain, rng, params), true
		}
		if strings.Contains(first.Content, stopMarker) {
			return respondUser(p, rng, params), true
		}
		return llm.Choice{}, false
	}
	// The supervisor's prompts are known by their structure (a transcript,
	// a response, then the label to answer), not by their wording, which
	// is the reference's or the bundled templates'.
	if len(p.Messages) == 1 && first.Role == "user" && strings.Contains(first.Content, "Transcript:") {
		switch {
		case strings.Contains(first.Content, "Reflection:"):
			return llm.Choice{Content: reflection(first.Content, rng, params)}, true
		case strings.Contains(first.Content, "Classification:"):
			return llm.Choice{Content: classify(first.Content, rng, params)}, true
		}
	}
	return llm.Choice{}, false
}

// policyDomain is "airline" or "retail" when text begins with that
// domain's policy title.
func policyDomain(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	switch strings.ToLower(strings.TrimSpace(line)) {
	case airlinePolicy:
		return "airline"
	case retailPolicy:
		return "retail"
	}
	return ""
}
