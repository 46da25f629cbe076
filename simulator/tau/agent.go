package tau

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	reply "github.com/reasonbench/reasonbench/strategies/action"
)

// Phrases of the agent's own messages that it reads back (and the user
// recognises).
const (
	detailsMark  = "Details: "
	confirmAsk   = "Do you confirm? Please answer yes or no."
	anythingElse = "Is there anything else I can help you with?"
	refusalMark  = "I'm sorry, but I cannot proceed with the "
	declinedMark = "I will not make that change: "
)

// agent works out one turn of the simulated customer-service agent.
type agent struct {
	c      convo
	rng    *rand.Rand
	params sim.Params
	now    string // the policy's current time, YYYY-MM-DDTHH:MM:SS
	year   string
}

var nowRE = regexp.MustCompile(`current time is (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)`)

func respondAgent(p sim.Prompt, domain string, rng *rand.Rand, params sim.Params) llm.Choice {
	c := readConvo(p, domain)
	a := &agent{c: c, rng: rng, params: params, now: "2024-05-15T15:00:00", year: "2024"}
	if m := nowRE.FindStringSubmatch(c.policy); m != nil {
		a.now, a.year = m[1]+"T"+m[2], m[1][:4]
	}
	var act action
	if r, ok := a.report(); ok {
		act = r
	} else if w, ok := a.confirmed(); ok {
		act = w
	} else if domain == "airline" {
		act = a.airline()
	} else {
		act = a.retail()
	}
	act = a.afterDenial(act)
	if act.tool != "" && !c.tools[act.tool] {
		// A tool this episode does not offer: say so instead.
		act = action{say: "I'm sorry, I am not able to do that here. " + anythingElse}
	}
	return c.render(act, rng, params)
}

// userTexts are what the user said, in order.
func (a *agent) userTexts() []string {
	var out []string
	for _, e := range a.c.events {
		if e.kind == "user" {
			out = append(out, e.text)
		}
	}
	return out
}

// userSaid is everything the user said, joined.
func (a *agent) userSaid() string { return strings.Join(a.userTexts(), "\n") }

// lastUser is the user's last message.
func (a *agent) lastUser() string {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		if a.c.events[i].kind == "user" {
			return a.c.events[i].text
		}
	}
	return ""
}

// asked counts the agent's messages containing phrase.
func (a *agent) asked(phrase string) int {
	n := 0
	for _, e := range a.c.events {
		if e.kind == "say" && strings.Contains(e.text, phrase) {
			n++
		}
	}
	return n
}

// replyTo is what the user answered to the agent's last message that
// contained phrase ("" if none yet).
func (a *agent) replyTo(phrase string) string {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		e := a.c.events[i]
		if e.kind == "say" && strings.Contains(e.text, phrase) {
			for _, f := range a.c.events[i+1:] {
				if f.kind == "user" {
					return f.text
				}
			}
			return ""
		}
	}
	return ""
}

// results are the successful calls of a tool, in order.
func (a *agent) results(tool string) []event {
	var out []event
	for _, e := range a.c.events {
		if e.tool == tool && e.ok() {
			out = append(out, e)
		}
	}
	return out
}

// failures counts the calls of tool with these arguments that failed.
func (a *agent) failures(tool string, args obj) int {
	n := 0
	for _, e := range a.c.events {
		if e.kind == "call" && e.tool == tool && e.answered && isError(e.result) && e.args.text() == args.text() {
			n++
		}
	}
	return n
}

// lastResult is the decoded result of the last successful call of tool
// whose argument key is val.
func (a *agent) lastResult(tool, key, val string) any {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		e := a.c.events[i]
		if e.tool == tool && e.ok() && (key == "" || e.args.str(key) == val) {
			return decode(e.result)
		}
	}
	return nil
}

// call is a tool call; with probability Slip one of its arguments is
// misread (a digit of an id, a count).
func (a *agent) call(tool string, args obj, thought string) action {
	if a.rng.Float64() < a.params.Slip {
		args = misread(args, a.rng)
	}
	return action{tool: tool, args: args, thought: thought}
}

func (a *agent) ask(text string) action { return action{say: text} }

// confirm lists a write with its arguments and asks for a yes; the
// arguments are misread with probability Slip, as any call's. A write the
// tool refused twice for the same target is given up (label names it in
// the refusal).
func (a *agent) confirm(label, what, tool string, args obj) action {
	if n, last := a.writeFailures(tool, args); n >= 2 {
		return a.refuse(label, "the system did not accept it ("+last+").")
	}
	if a.rng.Float64() < a.params.Slip {
		args = misread(args, a.rng)
	}
	return action{say: fmt.Sprintf("%s %s%s %s. %s", what, detailsMark, tool, args.text(), confirmAsk)}
}

// writeFailures counts the failed calls of a write on the same target
// (its first argument), with the last error.
func (a *agent) writeFailures(tool string, args obj) (int, string) {
	n, last := 0, ""
	for _, e := range a.c.events {
		if e.kind == "call" && e.tool == tool && e.answered && isError(e.result) && len(e.args) > 0 && len(args) > 0 &&
			e.args.text() != "" && fmt.Sprint(e.args.get(e.args[0].key)) == fmt.Sprint(args.get(args[0].key)) {
			n++
			last = e.result
		}
	}
	return n, last
}

// writes are the tools that change the database.
var writes = map[string]bool{"book_reservation": true, "cancel_reservation": true, "update_reservation_baggages": true,
	"update_reservation_flights": true, "update_reservation_passengers": true, "send_certificate": true,
	"cancel_pending_order": true, "exchange_delivered_order_items": true, "modify_pending_order_address": true,
	"modify_pending_order_items": true, "modify_pending_order_payment": true, "modify_user_address": true,
	"return_delivered_order_items": true}

// report says what the last write did, when the last event is one.
func (a *agent) report() (action, bool) {
	n := len(a.c.events)
	if n == 0 {
		return action{}, false
	}
	e := a.c.events[n-1]
	if e.kind != "call" || !e.answered || !writes[e.tool] {
		return action{}, false
	}
	if isError(e.result) {
		return a.say("I'm sorry, that did not go through: " + oneLine(e.result) + " Let me look at it again."), true
	}
	v := decode(e.result)
	var what string
	switch e.tool {
	case "book_reservation":
		what = fmt.Sprintf("Your reservation %s has been booked successfully.", s(v, "reservation_id"))
	case "cancel_reservation":
		what = fmt.Sprintf("Reservation %s has been cancelled. The refund will go to the original payment methods in 5 to 7 business days.", e.args.str("reservation_id"))
	case "send_certificate":
		what = "The certificate has been sent: " + oneLine(e.result)
	case "modify_user_address":
		what = "Your default address has been updated."
	default:
		if id := e.args.str("reservation_id"); id != "" {
			what = fmt.Sprintf("Reservation %s has been updated successfully.", id)
		} else {
			what = fmt.Sprintf("Order %s has been updated successfully; its status is now '%s'.", e.args.str("order_id"), s(v, "status"))
			if e.tool == "return_delivered_order_items" || e.tool == "exchange_delivered_order_items" {
				what += " You will receive an email about how to return the items."
			}
		}
	}
	return a.say(what + " " + anythingElse), true
}

// refuse says a request cannot be done.
func (a *agent) refuse(verb, why string) action {
	return action{say: refusalMark + verb + ": " + why + " " + anythingElse}
}

func (a *agent) transfer(summary string) action {
	return action{tool: "transfer_to_human_agents", args: obj{{"summary", summary}}, thought: "This request is beyond what I can do; a human agent should take it."}
}

// confirmed is the write the user just said yes to: the agent's last
// message listed it (Details: TOOL {args}) and the user's reply affirms.
func (a *agent) confirmed() (action, bool) {
	n := len(a.c.events)
	if n < 2 || a.c.events[n-1].kind != "user" || a.c.events[n-2].kind != "say" {
		return action{}, false
	}
	tool, args, ok := readDetails(a.c.events[n-2].text)
	if !ok || !affirms(a.c.events[n-1].text) {
		return action{}, false
	}
	return action{tool: tool, args: args, thought: "The user confirmed; I can proceed."}, true
}

// afterDenial keeps the agent from proposing again what the user just
// declined: it asks what to change instead, and gives the request up when
// the user declined it twice.
func (a *agent) afterDenial(act action) action {
	n := len(a.c.events)
	if act.say == "" || n < 2 || a.c.events[n-1].kind != "user" || a.c.events[n-2].kind != "say" {
		return act
	}
	tool, args, ok := readDetails(a.c.events[n-2].text)
	if !ok || affirms(a.c.events[n-1].text) {
		return act
	}
	if t2, args2, ok := readDetails(act.say); !ok || t2 != tool || args2.text() != args.text() {
		return act
	}
	declined := 0
	for i, e := range a.c.events[:n-1] {
		if t3, _, ok := readDetails(e.text); e.kind == "say" && ok && t3 == tool && i+1 < n && a.c.events[i+1].kind == "user" && !affirms(a.c.events[i+1].text) {
			declined++
		}
	}
	if declined >= 2 {
		target := ""
		if len(args) > 0 {
			target = fmt.Sprint(args.get(args[0].key))
		}
		return a.say(fmt.Sprintf("I understand. %s%s for %s. %s", declinedMark, tool, target, anythingElse))
	}
	return a.ask("I understand. What would you like me to change in it?")
}

// declined reports whether the agent gave up a write the user declined
// twice (on target id, if given).
func (a *agent) declined(tool, id string) bool {
	for _, e := range a.c.events {
		if e.kind == "say" && strings.Contains(e.text, declinedMark+tool) && (id == "" || strings.Contains(e.text, id)) {
			return true
		}
	}
	return false
}

// readDetails reads the write a confirmation listed.
func readDetails(text string) (string, obj, bool) {
	i := strings.LastIndex(text, detailsMark)
	if i < 0 || !strings.Contains(text, confirmAsk) {
		return "", nil, false
	}
	rest := text[i+len(detailsMark):]
	name, js, ok := strings.Cut(rest, " ")
	if !ok || !reply.XMLName(name) {
		return "", nil, false
	}
	dec := json.NewDecoder(strings.NewReader(js))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return "", nil, false
	}
	args, err := parseObj(raw)
	if err != nil {
		return "", nil, false
	}
	return name, args, true
}

// affirms reports whether a reply is an explicit yes without a change of
// mind.
func affirms(reply string) bool {
	ws := wordSet(reply)
	yes := ws["yes"] || ws["yeah"] || ws["yep"] || ws["confirm"] || ws["proceed"] || hasAny(reply, "go ahead", "please do")
	no := ws["no"] || ws["not"] || ws["don"] || ws["dont"] || ws["wait"] || ws["but"] || ws["instead"] || ws["actually"] || ws["rather"]
	return yes && !no
}

// misread changes one digit of the arguments' strings and numbers.
func misread(args obj, rng *rand.Rand) obj {
	b, err := json.Marshal(args)
	if err != nil {
		return args
	}
	text := []byte(string(b))
	var digits []int
	inString := false
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\\':
			i++
		case text[i] == '"':
			inString = !inString
		case text[i] >= '0' && text[i] <= '9':
			digits = append(digits, i)
		}
	}
	if len(digits) == 0 {
		return args
	}
	i := digits[rng.IntN(len(digits))]
	text[i] = '0' + (text[i]-'0'+1+byte(rng.IntN(8)))%10
	out, err := parseObj(text)
	if err != nil || !json.Valid(text) {
		return args
	}
	return out
}

// choose picks among candidates ranked best first: the first with
// probability Skill, else another by Focus (the model's stable taste for
// this choice).
func (a *agent) choose(taste string, ranked []string) int {
	if len(ranked) <= 1 || a.rng.Float64() < a.params.Skill {
		return 0
	}
	others := ranked[1:]
	return 1 + sim.Pick(a.rng, a.params.Focus, taste, others)
}

// checks reports whether the agent applies a policy check this time
// (probability Skill).
func (a *agent) checks() bool { return a.rng.Float64() < a.params.Skill }

// said reports whether the agent already said something containing phrase
// after the event at index from.
func (a *agent) saidSince(from int, phrase string) bool {
	for _, e := range a.c.events[min(from, len(a.c.events)):] {
		if e.kind == "say" && strings.Contains(e.text, phrase) {
			return true
		}
	}
	return false
}

// wrapUp is what the agent says when nothing is left to do.
func (a *agent) wrapUp() action {
	if hasWord(a.lastUser(), "thank", "thanks") {
		return a.ask("You're welcome. " + anythingElse)
	}
	return a.ask(anythingElse)
}
