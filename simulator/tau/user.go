package tau

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// instruction is the simulated user's reading of its instruction.
type instruction struct {
	userID, email, first, last, zip string
	orders, reservations            []string
	goals                           []string // what the user wants, in the first person, in order
	conds                           []string // "If ..." sentences, in the first person
	facts                           []string // other sentences the user may say when asked (not its persona)
}

var (
	instrRE     = regexp.MustCompile(`Instruction: ([^\n]*)`)
	youAreName  = regexp.MustCompile(`\b(?:You are|Your name is|You name is|called)\s+([A-Z][a-z]+)(?:\s+([A-Z][a-z]+))?`)
	asideRE     = regexp.MustCompile(`\([^)]*\)`)
	wantMarkers = []string{"want", "wish", "would like", "'d like", "like to", "need", "hope", "looking for", "try to", "insist",
		"ask ", "wonder", "complain", "contacting", "request", "prefer to", "frustrated", "upset", "unhappy", "figure out", "find out"}
	requestVerbs = []string{"cancel", "return", "exchange", "change", "modify", "update", "book", "upgrade", "downgrade",
		"add", "remove", "know", "check", "compensat", "fly", "move", "switch", "swap", "replace", "adjust",
		"get ", "buy", "order", "correct", "delay", "figure out", "find out"}
)

// readInstruction splits an instruction into the user's facts, requests,
// conditions and persona (dropped).
func readInstruction(text string) instruction {
	in := instruction{userID: firstMatch(userIDRE, text), email: firstMatch(emailRE, text), zip: firstMatch(zipRE, text),
		orders: orderIDs(text), reservations: reservationIDs(text)}
	if mm := youAreName.FindStringSubmatch(text); mm != nil && !slices.Contains([]string{"French", "An", "A"}, mm[1]) {
		in.first, in.last = mm[1], mm[2]
	}
	var kinds []string
	for _, sent := range sentences(text) {
		// Asides the user must not say.
		sent = asideRE.ReplaceAllStringFunc(sent, func(a string) string {
			if hasAny(a, "reveal", "mention", "do not", "don't") {
				return ""
			}
			return a
		})
		lower := strings.ToLower(sent)
		switch {
		case persona(lower):
			continue
		case strings.HasPrefix(lower, "if ") || strings.HasPrefix(lower, "but if") || strings.HasPrefix(lower, "if and only if") ||
			strings.HasPrefix(lower, "otherwise") || strings.HasPrefix(lower, "when ") || strings.HasPrefix(lower, "in case"):
			in.conds = append(in.conds, firstPerson(sent))
		case hasAny(lower, wantMarkers...) && hasAny(lower, requestVerbs...) && !negated(lower) || startsWithVerb(lower):
			// A second sentence about the same kind of request details it,
			// unless it asks for something more ("also", "then").
			kind := requestKind(lower)
			if slices.Contains(kinds, kind) && !hasWord(lower, "also", "then", "another", "lastly", "finally", "second") {
				in.facts = append(in.facts, firstPerson(sent))
				continue
			}
			kinds = append(kinds, kind)
			in.goals = append(in.goals, firstPerson(goalPart(sent)))
		default:
			in.facts = append(in.facts, firstPerson(sent))
		}
	}
	return in
}

// requestKinds group the request verbs by what they ask for.
var requestKinds = [][]string{{"cancel"}, {"book", "fly", "buy"}, {"return"}, {"exchange", "swap", "replace"},
	{"upgrade", "downgrade"}, {"compensat", "complain", "delay"}, {"know", "wonder", "check", "ask ", "figure out", "find out"},
	{"change", "modify", "update", "move", "switch", "adjust", "correct", "add", "remove", "get ", "order"}}

// requestKind is the kind of the first request verb of a sentence.
func requestKind(lower string) string {
	best, at := "", len(lower)+1
	for _, group := range requestKinds {
		for _, v := range group {
			if i := strings.Index(lower, v); i >= 0 && i < at {
				best, at = group[0], i
			}
		}
	}
	return best
}

// negated reports a sentence that says what the user does not want.
func negated(lower string) bool {
	i := strings.Index(lower, "want")
	if j := strings.Index(lower, "need"); i < 0 || j >= 0 && j < i {
		i = j
	}
	if i < 0 {
		return false
	}
	before := lower[max(0, i-7):i]
	return strings.Contains(before, "not ") || strings.Contains(before, "n't ") || strings.Contains(before, "never ")
}

func firstMatch(re *regexp.Regexp, text string) string { return re.FindString(text) }

// persona reports whether a sentence only describes how the user behaves
// (never said to the agent).
func persona(lower string) bool {
	for _, p := range []string{"you are reactive", "you are detail", "you are a private", "you are polite", "you are calm",
		"you are emotional", "you are very", "you are a bit", "you are not good", "you are confident", "you are sad",
		"you are happy", "you are shy", "you are busy", "you are direct", "you are messy", "you are logical", "you are organized",
		"you are outgoing", "you are mysterious", "you are cautious", "you are funny", "you are an interesting",
		"you are french", "you are persistent", "you are patient", "you are curious", "you are independent", "you are optimistic",
		"you are pessimistic", "you are flexible", "you are rigid", "you are anxious", "you are into",
		"make sure", "try to paraphrase", "be polite", "be persistent", "you like to", "you speak", "you randomly",
		"do not take", "under no circumstances", "it is urgent", "use both", "you are a loyal"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

// startsWithVerb reports a sentence written as a command ("Cancel order
// #W1", "For #W2, exchange ...").
func startsWithVerb(lower string) bool {
	lower = strings.TrimSpace(lower)
	if strings.HasPrefix(lower, "for #w") {
		if _, rest, ok := strings.Cut(lower, ", "); ok {
			lower = rest
		}
	}
	for _, v := range []string{"cancel ", "return ", "exchange ", "modify ", "change ", "book "} {
		if strings.HasPrefix(lower, v) {
			return true
		}
	}
	return false
}

// goalPart drops an identity clause before the request ("Your user id is
// X and you want to ..." -> "you want to ...").
func goalPart(sent string) string {
	lower := strings.ToLower(sent)
	for _, m := range []string{"you want", "you wish", "you would like", "you'd like", "you need", "you are contacting", "you received", "you just"} {
		if i := strings.Index(lower, m); i > 0 && (userIDRE.MatchString(sent[:i]) || emailRE.MatchString(sent[:i]) || zipRE.MatchString(sent[:i]) || youAreName.MatchString(sent[:i])) {
			return strings.ToUpper(sent[i:i+1]) + sent[i+1:]
		}
	}
	return sent
}

var pronouns = []struct{ from, to string }{
	{"You are", "I am"}, {"you are", "I am"}, {"You were", "I was"}, {"you were", "I was"},
	{"You're", "I'm"}, {"you're", "I'm"}, {"You've", "I've"}, {"you've", "I've"}, {"You'd", "I'd"}, {"you'd", "I'd"},
	{"You'll", "I'll"}, {"you'll", "I'll"}, {"Yourself", "Myself"}, {"yourself", "myself"}, {"Yours", "Mine"},
	{"yours", "mine"}, {"Your", "My"}, {"your", "my"}, {"You", "I"}, {"you", "I"},
}

// agentVerbRE finds "you asks" where "the agent asks" became "you".
var agentVerbRE = regexp.MustCompile(`\b[Yy]ou (?:asks|says|gives|tells|offers|provides|charges|needs|wants|allows|lets|confirms|cancels|is|has|does|agrees|insists|refuses|mentions|tries)\b`)

// stopWords are words too common to tie a detail to a request.
var stopWords = map[string]bool{"want": true, "would": true, "like": true, "also": true, "with": true, "that": true, "this": true,
	"have": true, "your": true, "order": true, "item": true, "them": true, "they": true, "from": true, "into": true, "just": true}

var objectBefore = map[string]bool{"to": true, "for": true, "with": true, "asks": true, "ask": true, "tell": true, "tells": true,
	"give": true, "gives": true, "help": true, "let": true, "than": true, "about": true, "from": true, "by": true, "offers": true,
	"charge": true, "charges": true, "provides": true, "lets": true, "compensate": true, "confirms": true}

// firstPerson rewrites an instruction's sentence as the user says it.
func firstPerson(sent string) string {
	var out []string
	ws := strings.Fields(sent)
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		core := strings.TrimRight(w, ".,;:!?)")
		tail := w[len(core):]
		lead := ""
		if strings.HasPrefix(core, "(") {
			lead, core = "(", core[1:]
		}
		switch {
		case (core == "you" || core == "You") && i > 0 && objectBefore[strings.ToLower(strings.Trim(ws[i-1], "(,"))]:
			out = append(out, lead+"me"+tail)
			continue
		case (core == "you" || core == "You") && i+1 < len(ws) && (ws[i+1] == "are" || ws[i+1] == "were"):
			verb := "am"
			if ws[i+1] == "were" {
				verb = "was"
			}
			word := "I"
			if i > 0 && objectBefore[strings.ToLower(ws[i-1])] {
				word = "me"
			}
			out = append(out, lead+word, verb)
			i++
			continue
		}
		for _, p := range pronouns {
			if core == p.from {
				core = p.to
				break
			}
		}
		out = append(out, lead+core+tail)
	}
	s := strings.Join(out, " ")
	s = strings.ReplaceAll(s, "the agent", "you")
	s = strings.ReplaceAll(s, "The agent", "You")
	return agentVerbRE.ReplaceAllStringFunc(s, func(m string) string {
		switch {
		case strings.HasSuffix(m, " is"):
			return m[:len(m)-2] + "are"
		case strings.HasSuffix(m, " has"):
			return m[:len(m)-3] + "have"
		case strings.HasSuffix(m, " does"):
			return m[:len(m)-4] + "do"
		}
		return m[:len(m)-1]
	})
}

// userTurn is the conversation as the simulated user reads it.
type userTurn struct {
	in     instruction
	agent  []string // the agent's messages, in order
	own    []string // the user's earlier replies
	last   string   // the agent's last message
	system string
}

func respondUser(p sim.Prompt, rng *rand.Rand, params sim.Params) llm.Choice {
	system := p.Messages[0].Content
	react := strings.Contains(system, reactUser)
	mm := instrRE.FindStringSubmatch(system)
	if mm == nil {
		return userChoice(react, "I will start the conversation.", "Hi! I need some help.")
	}
	u := userTurn{in: readInstruction(mm[1]), system: system}
	for i, msg := range p.Messages[1:] {
		switch msg.Role {
		case "assistant":
			u.own = append(u.own, msg.Content)
		case "user":
			if i > 0 { // the first is the conversation's opening line
				u.agent = append(u.agent, msg.Content)
				u.last = msg.Content
			}
		}
	}
	if react {
		// Its own replies as the agent saw them.
		for i, o := range u.own {
			if _, r, ok := strings.Cut(o, reactUser); ok {
				u.own[i] = strings.TrimSpace(r)
			}
		}
	}
	thought, line := u.reply(rng, params)
	return userChoice(react, thought, line)
}

func userChoice(react bool, thought, line string) llm.Choice {
	if react {
		return llm.Choice{Content: "Thought:\n" + thought + "\n\nUser Response:\n" + line}
	}
	return llm.Choice{Content: line}
}

// reply is the user's next line and the thought behind it.
func (u *userTurn) reply(rng *rand.Rand, params sim.Params) (string, string) {
	if len(u.own) == 0 && u.last == "" {
		return "I should say what I need, without details yet.", u.opening()
	}
	last := u.last
	lower := strings.ToLower(last)
	if hasAny(lower, "transfer") && hasAny(lower, "human", "agent", "representative") {
		return "I am being transferred; the conversation is over.", stopMarker
	}
	if u.asksConfirmation(lower) {
		yes := u.wants(last)
		if rng.Float64() < params.Misjudge {
			yes = !yes
		}
		if yes {
			return "The agent lists what I asked for; I confirm.", "Yes, please proceed."
		}
		return "That is not what I want.", "No, that is not what I want. " + u.current()
	}
	if answers := u.facts(last, rng, params); answers != "" {
		return "The agent asked me for information; I give what I know.", answers
	}
	done := u.done()
	if refused(lower) {
		for _, c := range u.in.conds {
			if !u.said(c) {
				return "The agent cannot do it; my instruction says what to do then.", c
			}
		}
	}
	if done >= len(u.in.goals) || refused(lower) && done+1 >= len(u.in.goals) && u.allSaid() {
		return "Everything I wanted is done or cannot be done.", stopMarker
	}
	for _, g := range u.in.goals {
		if !u.said(g) {
			return "I should tell the agent what I want next.", g
		}
	}
	again := u.current()
	if n := len(u.own); n >= 2 && strings.Contains(u.own[n-1], again) && strings.Contains(u.own[n-2], again) {
		return "I have said this three times; the agent cannot help me further.", stopMarker
	}
	return "I should remind the agent what I still want.", again
}

// opening names the kind of the first request, nothing more.
func (u *userTurn) opening() string {
	if len(u.in.goals) == 0 {
		return "Hi! I need some help."
	}
	g := strings.ToLower(u.in.goals[0])
	thing := "an order"
	switch {
	case hasAny(g, "reservation", "flight", "trip", "fly"):
		thing = "a reservation"
	case hasAny(g, "address"):
		thing = "an address"
	}
	switch {
	case hasAny(g, "compensat", "complain", "delay"):
		return "Hi! I want to complain about a flight."
	case hasAny(g, "book", "fly from", "new flight"):
		return "Hi! I'd like to book a flight."
	case hasAny(g, "cancel"):
		return "Hi! I'd like to cancel " + thing + "."
	case hasAny(g, "return"):
		return "Hi! I'd like to return some items."
	case hasAny(g, "exchange"):
		return "Hi! I'd like to exchange some items."
	case hasAny(g, "bag"):
		return "Hi! I'd like to add checked bags to a reservation."
	case thing == "a reservation" && hasAny(g, "upgrade", "downgrade", "cabin", "class"):
		return "Hi! I'd like to change the cabin of a reservation."
	case hasAny(g, "change", "modify", "update", "move", "switch", "adjust"):
		return "Hi! I'd like to make a change to " + thing + "."
	case hasAny(g, "know", "wonder", "check", "how many", "how much"):
		return "Hi! I have a question."
	}
	return "Hi! I need some help."
}

// asksConfirmation reports whether the agent asks for a yes to an action.
func (u *userTurn) asksConfirmation(lower string) bool {
	return strings.Contains(lower, strings.ToLower(confirmAsk)) || hasAny(lower, "(yes/no)", "yes or no", "shall i proceed",
		"should i proceed", "would you like me to proceed", "do you want me to proceed", "do you confirm", "can you confirm",
		"please confirm", "would you like to proceed", "confirm that you")
}

// wants reports whether the action the agent lists is one the
// instruction asks for (and names none of someone else's orders or
// reservations).
func (u *userTurn) wants(msg string) bool {
	lower := strings.ToLower(msg)
	mine := append(slices.Clone(u.in.orders), u.in.reservations...)
	for _, id := range append(orderIDs(msg), reservationIDs(msg)...) {
		if len(mine) > 0 && !slices.Contains(mine, id) && strings.Contains(lower, "order "+strings.ToLower(id)) {
			return false
		}
	}
	// A payment method of a kind other than the one the user asks for.
	prefs := strings.ToLower(strings.Join(append(append(slices.Clone(u.in.goals), u.in.facts...), u.revealedConds()...), " "))
	named := map[string]bool{"gift_card": hasAny(prefs, "gift card") || hasWord(prefs, "gc"), "paypal": hasAny(prefs, "paypal"),
		"credit_card": hasAny(prefs, "credit card") || hasAny(prefs, "card ending"), "certificate": hasAny(prefs, "certificate")}
	if listed := paymentKinds(lower); len(listed) > 0 && !hasAny(prefs, "original") && (named["gift_card"] || named["paypal"] || named["credit_card"] || named["certificate"]) {
		match := false
		for _, k := range listed {
			match = match || named[k]
		}
		if !match {
			return false
		}
	}
	wanted := strings.ToLower(strings.Join(append(slices.Clone(u.in.goals), u.revealedConds()...), " "))
	for _, kind := range [][]string{{"cancel"}, {"return"}, {"exchange", "swap", "replace"}, {"modify", "change", "update", "switch", "adjust"},
		{"book"}, {"upgrade", "cabin", "class", "business", "economy"}, {"modify", "upgrade", "downgrade"}, {"bag"}, {"passenger"}, {"address"},
		{"certificate", "compensat", "voucher"}} {
		if hasAny(lower, kind...) && hasAny(wanted, kind...) {
			return true
		}
	}
	return false
}

// paymentKinds are the kinds of the payment method ids a message names.
func paymentKinds(lower string) []string {
	var out []string
	for _, k := range []string{"gift_card", "paypal", "credit_card", "certificate"} {
		if strings.Contains(lower, k+"_") {
			out = append(out, k)
		}
	}
	return out
}

func (u *userTurn) revealedConds() []string {
	var out []string
	for _, c := range u.in.conds {
		if u.said(c) {
			out = append(out, c)
		}
	}
	return out
}

// said reports whether the user already said a sentence.
func (u *userTurn) said(sentence string) bool {
	for _, o := range u.own {
		if strings.Contains(o, sentence) {
			return true
		}
	}
	return false
}

func (u *userTurn) allSaid() bool {
	for _, g := range u.in.goals {
		if !u.said(g) {
			return false
		}
	}
	return true
}

// current is the request the user is on: the first not reported done.
func (u *userTurn) current() string {
	if d := u.done(); d < len(u.in.goals) {
		return u.in.goals[d]
	}
	if len(u.in.goals) == 0 && len(u.in.facts) > 0 {
		return u.in.facts[0]
	}
	return "I think that is all."
}

// done counts the agent's messages that report a request done or refused
// after the user said what it wanted: the user takes its requests as
// worked on in order.
func (u *userTurn) done() int {
	n := 0
	for _, msg := range u.agent {
		lower := strings.ToLower(msg)
		if u.asksConfirmation(lower) {
			continue
		}
		if completed(lower) || refused(lower) || strings.Contains(msg, infoMark) {
			n++
		}
	}
	return n
}

func completed(lower string) bool {
	return hasAny(lower, "has been", "have been", "successfully", "is now", "are now", "completed", "is done", "all set")
}

func refused(lower string) bool {
	return hasAny(lower, "i cannot", "i can't", "i can not", "unable to", "not able to", "not possible", "not allowed",
		"not eligible", "i'm sorry, but", "i am sorry, but")
}

// facts answers what the agent asks for; a fact given is misstated (one
// digit) with probability Slip.
func (u *userTurn) facts(msg string, rng *rand.Rand, params sim.Params) string {
	// Only what the agent asks: its questions and requests.
	var asks []string
	for _, sent := range sentences(msg) {
		l := strings.ToLower(sent)
		if strings.HasSuffix(sent, "?") || hasAny(l, "please provide", "could you", "can you", "let me know", "please share", "please tell", "may i have") {
			asks = append(asks, sent)
		}
	}
	if len(asks) == 0 {
		return ""
	}
	lower := strings.ToLower(strings.Join(asks, " "))
	slip := func(s string) string {
		if s == "" || rng.Float64() >= params.Slip {
			return s
		}
		return misreadText(s, rng)
	}
	var out []string
	in := u.in
	askedEmail := strings.Contains(lower, "email")
	askedName := strings.Contains(lower, "name") && strings.Contains(lower, "zip")
	switch {
	case askedEmail && in.email != "":
		out = append(out, "My email is "+slip(in.email)+".")
	case askedName && in.first != "" && in.zip != "":
		out = append(out, fmt.Sprintf("My name is %s %s and my zip code is %s.", in.first, in.last, slip(in.zip)))
	case (askedName || askedEmail) && in.userID != "" && in.zip != "":
		out = append(out, fmt.Sprintf("My user id is %s and my zip code is %s.", in.userID, slip(in.zip)))
	case askedEmail || askedName:
		out = append(out, "I don't remember those details.")
	}
	if hasAny(lower, "user id", "user-id", "userid") && !askedEmail && !askedName {
		if in.userID != "" {
			out = append(out, "My user id is "+slip(in.userID)+".")
		} else {
			out = append(out, "I don't remember my user id.")
		}
	}
	if hasAny(lower, "order id", "order number", "order #") {
		if len(in.orders) > 0 {
			out = append(out, "The order id is "+slip(strings.Join(u.relevant(in.orders), " and "))+".")
		} else {
			out = append(out, "I don't remember the order id.")
		}
	}
	if hasAny(lower, "reservation id", "reservation number", "confirmation number", "booking reference", "reservation code") {
		if len(in.reservations) > 0 {
			out = append(out, "The reservation id is "+slip(strings.Join(u.relevant(in.reservations), " and "))+".")
		} else {
			out = append(out, "I don't remember the reservation id.")
		}
	}
	if strings.Contains(lower, "reason") {
		out = append(out, u.reason())
	}
	topics := []struct {
		asks  []string
		about []string
	}{
		{[]string{"payment method", "pay with", "pay the", "refund to", "which card", "credit card", "payment"}, []string{"pay", "card", "gift", "certificate", "paypal", "refund", "gc", "original"}},
		{[]string{"which item", "which product", "what would you like", "which items", "and how"}, nil},
		{[]string{"cabin", "class"}, []string{"economy", "business", "cabin", "class"}},
		{[]string{"one way or", "round trip"}, []string{"one way", "one-way", "round trip", "round-trip"}},
		{[]string{"which date", "what date", "when would you"}, []string{"may ", "date", "day", "-05-"}},
		{[]string{"fly from", "where would you"}, []string{" from ", "fly to", "go to", "flight to", "trip to"}},
		{[]string{"date of birth", "passenger details", "each passenger?", "who will be", "who is traveling", "names of the passengers"}, []string{"passenger", "birth", "dob", "myself"}},
		{[]string{"insurance"}, []string{"insurance"}},
		{[]string{"checked bag", "how many bags", "baggage"}, []string{"bag", "luggage", "suitcase"}},
		{[]string{"address"}, []string{"address", "street", "drive", "avenue", "suite"}},
		{[]string{"how can i help", "what can i do for you", "how may i help", "which of your reservations", "which trip", "which order"}, nil},
	}
	for _, t := range topics {
		if !hasAny(lower, t.asks...) {
			continue
		}
		if t.about == nil {
			// What it wants: the request, else the details the
			// instruction gives about it.
			g := u.current()
			if !u.said(g) {
				out = appendNew(out, g)
				continue
			}
			gw := wordSet(g)
			for _, fact := range in.facts {
				if u.said(fact) || slices.Contains(out, fact) {
					continue
				}
				for w := range wordSet(fact) {
					if len(w) > 3 && gw[w] && !stopWords[w] {
						out = append(out, fact)
						break
					}
				}
			}
			if len(out) == 0 {
				out = append(out, g)
			}
			continue
		}
		for _, sent := range append(append(slices.Clone(in.goals), in.facts...), in.conds...) {
			if hasAny(strings.ToLower(sent), t.about...) && !slices.Contains(out, sent) {
				out = append(out, sent)
			}
		}
	}
	return strings.Join(out, " ")
}

// relevant are the ids the current request names, else all of them.
func (u *userTurn) relevant(ids []string) []string {
	cur := u.current()
	var out []string
	for _, id := range ids {
		if strings.Contains(cur, id) || strings.Contains(cur, strings.TrimPrefix(id, "#")) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return ids
	}
	return out
}

// reason is why the user cancels, as its instruction gives it.
func (u *userTurn) reason() string {
	all := strings.ToLower(strings.Join(append(append(slices.Clone(u.in.goals), u.in.facts...), u.in.conds...), " "))
	switch {
	case hasAny(all, "ordered by mistake", "by mistake"):
		return "I ordered it by mistake."
	case hasAny(all, "no longer need"):
		return "I no longer need it."
	case hasAny(all, "sick", "unwell", "health", "ill "):
		return "I am not feeling well, so I can't travel."
	case hasAny(all, "weather"):
		return "It's because of the weather."
	case hasAny(all, "change of plan", "plans changed"):
		return "It's a change of plan."
	case hasAny(all, "airline cancel", "flight was cancel"):
		return "The airline cancelled the flight."
	}
	return "I'd rather not say."
}

// misreadText changes one digit of s (or its last letter when it has
// none).
func misreadText(s string, rng *rand.Rand) string {
	b := []byte(s)
	var digits []int
	for i, c := range b {
		if c >= '0' && c <= '9' {
			digits = append(digits, i)
		}
	}
	if len(digits) == 0 {
		return s
	}
	i := digits[rng.IntN(len(digits))]
	b[i] = '0' + (b[i]-'0'+1+byte(rng.IntN(8)))%10
	return string(b)
}

// supervisedResponse is the response a supervisor prompt shows: the
// paragraph after the first "Response:" label that follows the transcript,
// in the reference's wording ("# Response:") and in the bundled one.
func supervisedResponse(prompt string) string {
	_, rest, ok := strings.Cut(prompt, "Transcript:")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, "Response:\n")
	if !ok {
		return ""
	}
	para, _, _ := strings.Cut(rest, "\n\n")
	return strings.TrimSpace(para)
}

// classify is the verify user's supervisor: a response is satisfactory
// when it is one line (###STOP### alone), judged wrongly with probability
// Misjudge.
func classify(prompt string, rng *rand.Rand, params sim.Params) string {
	resp := supervisedResponse(prompt)
	ok := resp != "" && !strings.Contains(resp, "\n") && (!strings.Contains(resp, stopMarker) || resp == stopMarker)
	if rng.Float64() < params.Misjudge {
		ok = !ok
	}
	if ok {
		return "true"
	}
	return "false"
}

// reflection is the reflection user's supervisor: it keeps the response's
// first line.
func reflection(prompt string, rng *rand.Rand, params sim.Params) string {
	line, _, _ := strings.Cut(supervisedResponse(prompt), "\n")
	if line == "" {
		line = "Could you please repeat that?"
	}
	return "Reflection:\nThe response should be one line that answers the agent's last message.\n\nResponse:\n" + line
}
