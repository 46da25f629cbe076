package tau

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The airline agent's requests and the verbs that start them.
var airlineVerbs = []string{"cancel", "book", "change", "modify", "move", "switch", "reschedule", "update", "upgrade",
	"downgrade", "add", "remove", "fly", "compensate", "complain", "refund", "transfer", "want", "delay", "know", "wonder",
	"check", "figure", "tell"}

// airlineKind classifies a segment of the user's words.
func airlineKind(verb, form, seg string) string {
	l := strings.ToLower(seg)
	switch {
	case hasAny(l, "human agent", "real person", "representative", "supervisor", "manager"):
		return "transfer"
	case verb == "compensate" || hasAny(l, "compensat", "voucher", "certificate as a gesture"):
		return "compensation"
	case verb == "complain" || verb == "delay":
		if hasAny(l, "compensat", "voucher", "refund", "certificate") {
			return "compensation"
		}
		return ""
	case verb == "cancel":
		if form == "cancelled" || form == "canceled" {
			if hasAny(l, "compensat", "voucher", "certificate") {
				return "compensation"
			}
			return ""
		}
		return "cancel"
	case verb == "book" && form != "booked":
		return "book"
	case verb == "fly" && hasAny(l, " to ") && hasWord(l, "want", "like", "need"):
		return "book"
	case verb == "know" || verb == "wonder" || verb == "check" || verb == "figure" || verb == "tell":
		if hasAny(l, "how many", "how much", "balance", "total", "sum", "allowance", "what is", "which") {
			return "info"
		}
		return ""
	case verb == "refund" || verb == "want":
		if hasWord(l, "insurance") && !hasAny(l, "not want", "n't want", "no insurance", "not need", "n't need") {
			return "insurance"
		}
		return ""
	}
	// Verbs of change: what is changed.
	switch {
	case hasWord(l, "insurance") && !hasAny(l, "not want", "n't want", "no insurance", "not need", "n't need"):
		return "insurance"
	case hasWord(l, "bag", "baggage", "suitcase", "luggage"):
		return "baggage"
	case verb == "upgrade" || verb == "downgrade" || hasWord(l, "cabin", "class", "business") && !hasWord(l, "flight", "date", "nonstop", "direct"):
		return "cabin"
	case hasWord(l, "passenger", "name", "traveler", "myself", "yourself") || verb == "remove" || verb == "add" && !hasWord(l, "flight"):
		if verb == "add" && !hasWord(l, "passenger", "traveler") {
			return ""
		}
		return "passengers"
	case hasWord(l, "flight", "date", "day", "nonstop", "direct", "later", "earlier", "trip", "return", "reservation"):
		return "flights"
	}
	return ""
}

// airlineTool is the write of a request about a reservation.
var airlineTool = map[string]string{"cancel": "cancel_reservation", "cabin": "update_reservation_flights",
	"flights": "update_reservation_flights", "baggage": "update_reservation_baggages", "passengers": "update_reservation_passengers"}

// labelOf names a request in the agent's questions and refusals.
var labelOf = map[string]string{"cancel": "cancellation", "cabin": "cabin change", "flights": "flight change",
	"baggage": "baggage change", "passengers": "passenger change", "insurance": "insurance change", "book": "booking",
	"compensation": "compensation", "return": "return", "swap": "exchange or modification", "address": "address change",
	"user_address": "change of your default address", "payment": "payment change", "info": "question", "transfer": "transfer"}

const (
	askUserID      = "Could you please provide your user id?"
	askIntent      = "How can I help you today?"
	askReservation = "Could you please provide the reservation id for the "
)

// airline is one turn of the airline agent.
func (a *agent) airline() action {
	said := a.userSaid()
	profile, uid, act := a.airlineProfile(said)
	if profile == nil {
		return act
	}
	reqs := readRequests(a.userTexts(), airlineVerbs, airlineKind)
	if len(reqs) == 0 {
		if a.asked(askIntent) >= 3 {
			return a.transfer("The user's request could not be understood.")
		}
		return a.ask(askIntent)
	}
	for _, r := range reqs {
		if act, done := a.airlineRequest(r, uid, profile); !done {
			return act
		}
	}
	return a.wrapUp()
}

// airlineProfile is the user's profile once looked up, else the step
// towards it.
func (a *agent) airlineProfile(said string) (profile any, uid string, next action) {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		if e := a.c.events[i]; e.tool == "get_user_details" && e.ok() {
			if p := decode(e.result); p != nil {
				return p, e.args.str("user_id"), action{}
			}
		}
	}
	ids := userIDRE.FindAllString(said, -1)
	if len(ids) == 0 {
		if a.asked(askUserID) >= 3 {
			return nil, "", a.transfer("The user could not give a user id.")
		}
		return nil, "", a.ask(askUserID)
	}
	id := ids[len(ids)-1]
	args := obj{{"user_id", id}}
	if a.failures("get_user_details", args) >= 2 {
		return nil, "", a.ask(fmt.Sprintf("I could not find the user id %s. %s", id, askUserID))
	}
	return nil, "", a.call("get_user_details", args, "I need the user's profile first.")
}

// airlineRequest works on one request: the next step, or done.
func (a *agent) airlineRequest(r request, uid string, profile any) (action, bool) {
	switch r.kind {
	case "transfer":
		return a.transfer("The user asks for a human agent: " + oneLine(r.text)), false
	case "insurance":
		if a.saidRefusal(r.kind, "") {
			return action{}, true
		}
		return a.refuse(labelOf[r.kind], "travel insurance cannot be added or refunded after the initial booking."), false
	case "book":
		return a.book(r, uid, profile)
	case "info":
		return a.airlineInfo(r, profile)
	case "compensation":
		return a.compensate(r, uid, profile)
	}
	targets, act, ok := a.targets(r, profile)
	if !ok {
		return act, false
	}
	for _, id := range targets {
		if a.handled(r.kind, id) {
			continue
		}
		res := a.reservation(id)
		if res == nil {
			args := obj{{"reservation_id", id}}
			if a.failures("get_reservation_details", args) > 0 {
				if a.saidRefusal(r.kind, id) {
					continue
				}
				return a.refuse(labelOf[r.kind]+" of reservation "+id, "I could not find it."), false
			}
			return a.call("get_reservation_details", args, "I need the reservation's details."), false
		}
		switch r.kind {
		case "cancel":
			return a.cancelReservation(r, id, res), false
		case "cabin":
			return a.changeCabin(r, id, res, profile), false
		case "baggage":
			return a.changeBaggage(r, id, res, profile), false
		case "passengers":
			return a.changePassengers(r, id, res, profile), false
		case "flights":
			return a.changeFlights(r, id, res, profile), false
		}
	}
	return action{}, true
}

// handled reports whether a request on a reservation was written or
// refused.
func (a *agent) handled(kind, id string) bool {
	for _, e := range a.c.events {
		if e.ok() && e.tool == airlineTool[kind] && e.args.str("reservation_id") == id {
			return true
		}
	}
	return a.saidRefusal(kind, id) || a.declined(airlineTool[kind], id)
}

// saidRefusal reports whether the agent refused a request of this kind (on
// this id, if any).
func (a *agent) saidRefusal(kind, id string) bool {
	for _, e := range a.c.events {
		if e.kind == "say" && strings.HasPrefix(e.text, refusalMark+labelOf[kind]) && (id == "" || strings.Contains(e.text, id)) {
			return true
		}
	}
	return false
}

// reservation is the latest view of a reservation (its lookup or a write's
// result).
func (a *agent) reservation(id string) any {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		e := a.c.events[i]
		if e.ok() && e.args.str("reservation_id") == id {
			if v := decode(e.result); s(v, "reservation_id") == id {
				return v
			}
		}
	}
	return nil
}

// targets are the reservations a request is about: the ids the user gave
// for it, all of them when the user says "all", else the one the agent
// finds by the places, dates and flights the user named.
func (a *agent) targets(r request, profile any) ([]string, action, bool) {
	mine := strs(arr(profile, "reservations"))
	text := r.text + "\n" + a.replyTo(askReservation+labelOf[r.kind])
	var ids []string
	for _, id := range reservationIDs(text) {
		if len(mine) == 0 || slices.Contains(mine, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		return ids, action{}, true
	}
	if hasWord(r.text, "all", "every") && (r.kind == "cancel" || r.kind == "cabin") {
		if act, ok := a.fetchAll(mine); !ok {
			return nil, act, false
		}
		var out []string
		for _, id := range mine {
			res := a.reservation(id)
			if r.kind == "cancel" && !a.upcoming(res) {
				continue
			}
			if r.kind == "cabin" && !strings.Contains(strings.ToLower(r.text), strings.ReplaceAll(s(res, "cabin"), "_", " ")+" ") {
				continue
			}
			out = append(out, id)
		}
		return out, action{}, true
	}
	if a.asked(askReservation+labelOf[r.kind]) == 0 {
		return nil, a.ask(askReservation + labelOf[r.kind] + "?"), false
	}
	// The user does not know it: look them all up and take the one that
	// matches what the user said best.
	if act, ok := a.fetchAll(mine); !ok {
		return nil, act, false
	}
	if act, ok := a.airports(a.userSaid()); !ok {
		return nil, act, false
	}
	said := a.userSaid()
	type cand struct {
		id    string
		score int
	}
	var cands []cand
	for _, id := range mine {
		res := a.reservation(id)
		if res == nil || r.kind != "compensation" && !a.upcoming(res) {
			continue
		}
		cands = append(cands, cand{id, a.matchReservation(res, said)})
	}
	if len(cands) == 0 {
		return nil, a.refuse(labelOf[r.kind], "I found no upcoming reservation in your profile."), false
	}
	slices.SortStableFunc(cands, func(x, y cand) int { return y.score - x.score })
	if len(cands) > 1 && cands[0].score == cands[1].score && a.asked(askWhichTrip) == 0 {
		var list []string
		for _, c := range cands {
			list = append(list, c.id+" ("+describe(a.reservation(c.id))+")")
		}
		return nil, a.ask(askWhichTrip + " You have: " + strings.Join(list, "; ") + "."), false
	}
	ranked := make([]string, len(cands))
	for i, c := range cands {
		ranked[i] = c.id
	}
	return []string{ranked[a.choose("reservation:"+r.kind, ranked)]}, action{}, true
}

const askWhichTrip = "Which of your reservations is it? Please tell me its origin, destination or date."

// fetchAll looks up every reservation not yet seen, one a turn.
func (a *agent) fetchAll(ids []string) (action, bool) {
	for _, id := range ids {
		args := obj{{"reservation_id", id}}
		if a.reservation(id) == nil && a.failures("get_reservation_details", args) == 0 {
			return a.call("get_reservation_details", args, "I should check each reservation."), false
		}
	}
	return action{}, true
}

// airports lists the airports' cities once, when the user named places
// without their codes.
func (a *agent) airports(said string) (action, bool) {
	if len(a.results("list_all_airports")) > 0 || !a.c.tools["list_all_airports"] || len(codesIn(said, nil)) > 0 {
		return action{}, true
	}
	return a.call("list_all_airports", obj{}, "I need the airport codes of the cities the user named."), false
}

var codeRE = regexp.MustCompile(`\b[A-Z]{3}\b`)

// codesIn are the airport codes in text, in order: written as codes, or
// as a city the airport list names (known: code -> city).
func codesIn(text string, known map[string]string) []string {
	type at struct {
		pos  int
		code string
	}
	var found []at
	for _, m := range codeRE.FindAllStringIndex(text, -1) {
		c := text[m[0]:m[1]]
		if _, ok := known[c]; ok || known == nil && !slices.Contains([]string{"USA", "EST", "GC", "DOB", "ETA"}, c) {
			found = append(found, at{m[0], c})
		}
	}
	lower := strings.ToLower(text)
	for code, city := range known {
		city = strings.ToLower(city)
		for _, alias := range []string{city, strings.ReplaceAll(city, " ", "")} {
			if i := strings.Index(lower, alias); alias != "" && i >= 0 {
				found = append(found, at{i, code})
				break
			}
		}
	}
	slices.SortStableFunc(found, func(x, y at) int { return x.pos - y.pos })
	var out []string
	for _, f := range found {
		out = appendNew(out, f.code)
	}
	return out
}

// knownAirports is the airport list's result (code -> city), if looked up.
func (a *agent) knownAirports() map[string]string {
	out := map[string]string{}
	for _, e := range a.results("list_all_airports") {
		if mm, ok := decode(e.result).(map[string]any); ok {
			for k, v := range mm {
				if c, ok := v.(string); ok {
					out[k] = c
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// matchReservation scores how well a reservation fits what the user said:
// its airports, dates and flight numbers named.
func (a *agent) matchReservation(res any, said string) int {
	codes := codesIn(said, a.knownAirports())
	ds := dates(said, a.year)
	score := 0
	for _, fl := range arr(res, "flights") {
		if slices.Contains(codes, s(fl, "origin")) || slices.Contains(codes, s(fl, "destination")) {
			score++
		}
		if slices.Contains(ds, s(fl, "date")) {
			score++
		}
		if strings.Contains(said, s(fl, "flight_number")) {
			score += 2
		}
	}
	return score
}

// upcoming reports whether a reservation has a flight after today.
func (a *agent) upcoming(res any) bool {
	for _, fl := range arr(res, "flights") {
		if s(fl, "date") >= a.now[:10] {
			return true
		}
	}
	return false
}

// flown reports whether a reservation has a flight before today.
func (a *agent) flown(res any) bool {
	for _, fl := range arr(res, "flights") {
		if s(fl, "date") < a.now[:10] {
			return true
		}
	}
	return false
}

func strs(v []any) []string {
	var out []string
	for _, x := range v {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// describe is a reservation in a few words.
func describe(res any) string {
	var legs []string
	for _, fl := range arr(res, "flights") {
		legs = append(legs, fmt.Sprintf("%s %s to %s on %s", s(fl, "flight_number"), s(fl, "origin"), s(fl, "destination"), s(fl, "date")))
	}
	return fmt.Sprintf("%s, %s, %s, %d passenger(s): %s", strings.ReplaceAll(s(res, "flight_type"), "_", " "),
		strings.ReplaceAll(s(res, "cabin"), "_", " "), s(res, "origin")+" to "+s(res, "destination"), len(arr(res, "passengers")), strings.Join(legs, "; "))
}

const askCancelReason = "What is the reason for the cancellation: change of plan, airline cancelled flight, or other reasons?"

// cancelReservation checks the policy's rules and asks to cancel.
func (a *agent) cancelReservation(r request, id string, res any) action {
	said := a.userSaid()
	reason := ""
	switch {
	case hasAny(said, "airline cancel", "flight was cancel", "flight got cancel", "cancelled by the airline", "canceled by the airline", "flight has been cancel"):
		reason = "airline cancelled flight"
	case hasAny(said, "sick", "unwell", "ill ", "health", "weather", "hospital", "passed away", "emergency", "injur"):
		reason = "health"
	case hasAny(said, "change of plan", "plans changed", "plan changed", "no longer", "don't need", "do not need", "changed my mind", "not going"):
		reason = "change of plan"
	case a.asked(askCancelReason) == 0:
		return a.ask(askCancelReason)
	default:
		reason = "other reasons"
	}
	if a.flown(res) {
		return a.transfer(fmt.Sprintf("The user wants to cancel reservation %s, part of which has been flown.", id))
	}
	created := s(res, "created_at")
	recent := created >= a.dayBefore()
	allowed := recent || reason == "airline cancelled flight" || s(res, "cabin") == "business" ||
		s(res, "insurance") == "yes" && reason == "health"
	if !allowed && a.checks() {
		return a.refuse(labelOf["cancel"]+" of reservation "+id, "it was booked more than 24 hours ago, and an economy or basic economy reservation can then be cancelled only with travel insurance for health or weather reasons, or when the airline cancelled the flight.")
	}
	return a.confirm(labelOf["cancel"]+" of reservation "+id, fmt.Sprintf("I will cancel reservation %s (%s). The refund will go to the original payment methods in 5 to 7 business days.", id, describe(res)),
		"cancel_reservation", obj{{"reservation_id", id}})
}

// dayBefore is the policy's current time less 24 hours.
func (a *agent) dayBefore() string { return addDays(a.now[:10], -1) + a.now[10:] }

var cabins = []string{"basic_economy", "economy", "business"}

// cabinIn is the cabin text asks for: the one after "to", else the one
// named last.
func cabinIn(text string) string {
	l := strings.ToLower(text)
	best, at := "", -1
	for _, c := range cabins {
		name := strings.ReplaceAll(c, "_", " ")
		for i := 0; ; {
			j := strings.Index(l[i:], name)
			if j < 0 {
				break
			}
			pos := i + j
			// "basic economy" also contains "economy".
			if c == "economy" && pos >= 6 && l[pos-6:pos] == "basic " {
				i = pos + len(name)
				continue
			}
			score := pos
			if pos >= 3 && l[pos-3:pos] == "to " {
				score += 1 << 20
			}
			if score > at {
				best, at = c, score
			}
			i = pos + len(name)
		}
	}
	return best
}

const askCabin = "Which cabin would you like: basic economy, economy or business?"

// changeCabin asks to move every flight of a reservation to another cabin.
func (a *agent) changeCabin(r request, id string, res, profile any) action {
	cabin := cabinIn(r.text)
	if cabin == "" {
		cabin = cabinIn(a.replyTo(askCabin))
	}
	if cabin == "" && hasWord(r.text, "upgrade") {
		cabin = "business"
	}
	if cabin == "" {
		if a.asked(askCabin) < 2 {
			return a.ask(askCabin)
		}
		return a.refuse(labelOf["cabin"]+" of reservation "+id, "I do not know which cabin you want.")
	}
	if cabin == s(res, "cabin") {
		return a.refuse(labelOf["cabin"]+" of reservation "+id, "it is already in "+strings.ReplaceAll(cabin, "_", " ")+".")
	}
	pay, act, ok := a.airlinePayment(profile, res, false)
	if !ok {
		return act
	}
	return a.confirm(labelOf["cabin"]+" of reservation "+id, fmt.Sprintf("I will change the cabin of reservation %s (%s) to %s, keeping its flights; the price difference is paid with or refunded to %s.",
		id, describe(res), strings.ReplaceAll(cabin, "_", " "), pay), "update_reservation_flights",
		obj{{"reservation_id", id}, {"cabin", cabin}, {"flights", legsOf(res)}, {"payment_id", pay}})
}

// legsOf are a reservation's flights as the update tools take them.
func legsOf(res any) []obj {
	var out []obj
	for _, fl := range arr(res, "flights") {
		out = append(out, obj{{"flight_number", s(fl, "flight_number")}, {"date", s(fl, "date")}})
	}
	return out
}

// freeBags is the policy's table: free checked bags per passenger by
// membership and cabin.
var freeBags = map[string]map[string]int{
	"regular": {"basic_economy": 0, "economy": 1, "business": 2},
	"silver":  {"basic_economy": 1, "economy": 2, "business": 3},
	"gold":    {"basic_economy": 2, "economy": 3, "business": 3},
}

const askBags = "How many checked bags would you like to add?"

// changeBaggage asks to add checked bags.
func (a *agent) changeBaggage(r request, id string, res, profile any) action {
	n := countBefore(r.text, "bag", "baggage", "suitcase", "luggage")
	add := hasWord(r.text, "add", "extra", "more", "another")
	if n < 0 {
		n = countBefore(a.replyTo(askBags)+" bags", "bag")
		add = true
	}
	if n < 0 {
		if a.asked(askBags) < 2 {
			return a.ask(askBags)
		}
		return a.refuse(labelOf["baggage"]+" of reservation "+id, "I do not know how many bags to add.")
	}
	cur := int(f(res, "total_baggages"))
	total := n
	if add {
		total = cur + n
	}
	if total < cur {
		return a.refuse(labelOf["baggage"]+" of reservation "+id, "checked bags can be added but not removed.")
	}
	allowance := freeBags[s(profile, "membership")][s(res, "cabin")] * len(arr(res, "passengers"))
	nonfree := max(0, total-allowance)
	pay, act, ok := a.airlinePayment(profile, res, false)
	if !ok {
		return act
	}
	return a.confirm(labelOf["baggage"]+" of reservation "+id, fmt.Sprintf("I will update reservation %s to %d checked bags, %d of them not free (50 dollars each), paid with %s.", id, total, nonfree, pay),
		"update_reservation_baggages", obj{{"reservation_id", id}, {"total_baggages", total}, {"nonfree_baggages", nonfree}, {"payment_id", pay}})
}

var personDOB = regexp.MustCompile(`\b([A-Z][a-z]+) ([A-Z][a-z]+)\b[^.;\n]{0,40}?\b(\d{4}-\d\d-\d\d)\b`)

const askPassenger = "Please provide the first name, last name and date of birth of the new passenger."

// changePassengers asks to replace a reservation's passengers.
func (a *agent) changePassengers(r request, id string, res, profile any) action {
	if hasWord(r.text, "remove") || hasWord(r.text, "add") && hasWord(r.text, "passenger") {
		return a.refuse(labelOf["passengers"]+" of reservation "+id, "the number of passengers of a reservation cannot be changed.")
	}
	text := r.text + "\n" + a.replyTo(askPassenger)
	var people []obj
	if hasWord(text, "myself", "yourself", "me") {
		name := m(profile, "name")
		people = append(people, obj{{"first_name", s(name, "first_name")}, {"last_name", s(name, "last_name")}, {"dob", s(profile, "dob")}})
	}
	for _, p := range personDOB.FindAllStringSubmatch(text, -1) {
		people = append(people, obj{{"first_name", p[1]}, {"last_name", p[2]}, {"dob", p[3]}})
	}
	if len(people) == 0 {
		if a.asked(askPassenger) < 2 {
			return a.ask(askPassenger)
		}
		return a.refuse(labelOf["passengers"]+" of reservation "+id, "I do not have the new passenger's details.")
	}
	old := arr(res, "passengers")
	var out []obj
	for i, p := range old {
		if i < len(people) {
			out = append(out, people[i])
		} else {
			out = append(out, obj{{"first_name", s(p, "first_name")}, {"last_name", s(p, "last_name")}, {"dob", s(p, "dob")}})
		}
	}
	return a.confirm(labelOf["passengers"]+" of reservation "+id, fmt.Sprintf("I will update the passengers of reservation %s to %s.", id, obj{{"passengers", out}}.text()),
		"update_reservation_passengers", obj{{"reservation_id", id}, {"passengers", out}})
}

const askNewDate = "What date would you like to fly instead?"

// changeFlights asks to move the outbound (or return) flights of a
// reservation to another date, on the flight the user's preference picks.
func (a *agent) changeFlights(r request, id string, res, profile any) action {
	if s(res, "cabin") == "basic_economy" && a.checks() {
		return a.refuse(labelOf["flights"]+" of reservation "+id, "basic economy flights cannot be modified.")
	}
	legs := arr(res, "flights")
	if len(legs) == 0 {
		return a.transfer("Reservation " + id + " has no flights to change.")
	}
	// The outbound part runs to the reservation's destination.
	split := len(legs)
	for i, fl := range legs {
		if s(fl, "destination") == s(res, "destination") && s(res, "flight_type") == "round_trip" {
			split = i + 1
			break
		}
	}
	outbound, back := legs[:split], legs[split:]
	wantsBack := hasWord(r.text, "return", "back") && len(back) > 0
	change := outbound
	if wantsBack {
		change = back
	}
	from, to := s(change[0], "origin"), s(change[len(change)-1], "destination")
	old := s(change[0], "date")
	text := r.text + "\n" + a.replyTo(askNewDate)
	date := ""
	if ds := dates(text, a.year); len(ds) > 0 {
		date = ds[len(ds)-1]
	}
	switch {
	case date != "":
	case hasAny(text, "next day", "day after", "one day", "1 day", "a day later"):
		date = addDays(old, 1)
	case hasAny(text, "two days", "2 days"):
		date = addDays(old, 2)
	case hasAny(text, "same day", "that day", "nonstop", "direct", "later flight", "earlier flight"):
		date = old
	case a.asked(askNewDate) < 2:
		return a.ask(askNewDate)
	default:
		return a.refuse(labelOf["flights"]+" of reservation "+id, "I do not know which date you want.")
	}
	cabin := s(res, "cabin")
	if c := cabinIn(r.text); c != "" {
		cabin = c
	}
	options, act, ok := a.searchFlights(from, to, date, hasAny(text, "nonstop", "direct", "non-stop"))
	if !ok {
		return act
	}
	pick, ok := a.pickOption(options, cabin, text, "flights:"+id)
	if !ok {
		return a.refuse(labelOf["flights"]+" of reservation "+id, fmt.Sprintf("there is no available flight from %s to %s on %s in %s.", from, to, date, strings.ReplaceAll(cabin, "_", " ")))
	}
	var flights []obj
	add := func(legs []any) {
		for _, fl := range legs {
			flights = append(flights, obj{{"flight_number", s(fl, "flight_number")}, {"date", s(fl, "date")}})
		}
	}
	if wantsBack {
		add(outbound)
		add(pick)
	} else {
		add(pick)
		add(back)
	}
	pay, act, ok := a.airlinePayment(profile, res, false)
	if !ok {
		return act
	}
	return a.confirm(labelOf["flights"]+" of reservation "+id, fmt.Sprintf("I will change reservation %s to the flights %s in %s; the price difference is paid with or refunded to %s.",
		id, obj{{"flights", flights}}.text(), strings.ReplaceAll(cabin, "_", " "), pay),
		"update_reservation_flights", obj{{"reservation_id", id}, {"cabin", cabin}, {"flights", flights}, {"payment_id", pay}})
}

// searchFlights gives the options from -> to on date: each a list of
// flights (one direct, or two with a stop), searching direct flights first
// and flights with one stop when there are none (or not direct only).
func (a *agent) searchFlights(from, to, date string, directOnly bool) ([][]any, action, bool) {
	args := obj{{"origin", from}, {"destination", to}, {"date", date}}
	direct := a.lastSearch("search_direct_flight", args)
	if direct == nil {
		if a.failures("search_direct_flight", args) > 0 {
			return nil, action{}, true
		}
		return nil, a.call("search_direct_flight", args, fmt.Sprintf("I should search flights from %s to %s on %s.", from, to, date)), false
	}
	var out [][]any
	for _, fl := range direct.([]any) {
		if mm, ok := fl.(map[string]any); ok {
			mm["date"] = date
			out = append(out, []any{mm})
		}
	}
	if len(out) > 0 || directOnly || !a.c.tools["search_onestop_flight"] {
		return out, action{}, true
	}
	stop := a.lastSearch("search_onestop_flight", args)
	if stop == nil {
		if a.failures("search_onestop_flight", args) > 0 {
			return nil, action{}, true
		}
		return nil, a.call("search_onestop_flight", args, "There is no direct flight; I should search flights with one stop."), false
	}
	for _, pair := range stop.([]any) {
		if legs, ok := pair.([]any); ok && len(legs) > 0 {
			out = append(out, legs)
		}
	}
	return out, action{}, true
}

// lastSearch is a search's decoded result list, nil if not searched.
func (a *agent) lastSearch(tool string, args obj) any {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		e := a.c.events[i]
		if e.tool == tool && e.ok() && e.args.text() == args.text() {
			if v, ok := decode(e.result).([]any); ok {
				return v
			}
			return []any{}
		}
	}
	return nil
}

// pickOption chooses a flight option with seats in the cabin, by the
// user's preference (cheapest unless earliest or latest is asked for).
func (a *agent) pickOption(options [][]any, cabin, text, taste string) ([]any, bool) {
	type cand struct {
		legs  []any
		price float64
		dep   string
	}
	var cands []cand
	for _, legs := range options {
		price, okSeats := 0.0, true
		for _, fl := range legs {
			if f(m(fl, "available_seats"), cabin) < 1 {
				okSeats = false
			}
			price += f(m(fl, "prices"), cabin)
		}
		if okSeats {
			cands = append(cands, cand{legs, price, s(legs[0], "scheduled_departure_time_est")})
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	switch {
	case hasAny(text, "earliest", "earlier", "as soon as", "sooner"):
		slices.SortStableFunc(cands, func(x, y cand) int { return strings.Compare(x.dep, y.dep) })
	case hasAny(text, "latest", "later"):
		slices.SortStableFunc(cands, func(x, y cand) int { return strings.Compare(y.dep, x.dep) })
	default:
		slices.SortStableFunc(cands, func(x, y cand) int {
			switch {
			case x.price < y.price:
				return -1
			case x.price > y.price:
				return 1
			}
			return 0
		})
	}
	labels := make([]string, len(cands))
	for i, c := range cands {
		labels[i] = fmt.Sprint(c.legs)
	}
	return cands[a.choose(taste, labels)].legs, true
}

// airlinePayment is the payment method the user asked for (by kind, card
// digits or brand, or "original"), else a question listing theirs.
func (a *agent) airlinePayment(profile, res any, certificates bool) (string, action, bool) {
	methods := m(profile, "payment_methods")
	said := a.userSaid()
	pick := paymentMentioned(said, methods, certificates)
	if pick == "" && hasAny(said, "original") {
		for _, p := range arr(res, "payment_history") {
			id := s(p, "payment_id")
			if _, ok := methods[id]; ok && !strings.HasPrefix(id, "certificate") {
				pick = id
				break
			}
		}
	}
	if pick != "" {
		return pick, action{}, true
	}
	const ask = "Which payment method would you like to use? You have: "
	if a.asked(ask) < 2 {
		return "", a.ask(ask + listMethods(methods, certificates) + "."), false
	}
	// The user has no preference: a card of theirs, as a model would guess.
	var ids []string
	for _, id := range sortedKeys(methods) {
		if src := s(methods[id], "source"); src == "credit_card" || src == "gift_card" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", a.transfer("The user has no payment method for the change."), false
	}
	return ids[a.choose("payment", ids)], action{}, true
}

// paymentMentioned is the user's payment method their words point to:
// card digits, then a brand, then a kind (the smallest or largest balance
// if they say so).
func paymentMentioned(said string, methods map[string]any, certificates bool) string {
	lower := strings.ToLower(said)
	ids := sortedKeys(methods)
	for _, id := range ids {
		if four := s(methods[id], "last_four"); four != "" && strings.Contains(said, four) {
			return id
		}
	}
	for _, id := range ids {
		if brand := s(methods[id], "brand"); brand != "" && (strings.Contains(lower, brand) || brand == "mastercard" && strings.Contains(lower, "master card")) {
			return id
		}
	}
	kinds := []struct{ source, phrase string }{{"gift_card", "gift card"}, {"certificate", "certificate"}, {"credit_card", "credit card"}, {"paypal", "paypal"}}
	for _, k := range kinds {
		if !strings.Contains(lower, k.phrase) && !(k.source == "gift_card" && hasWord(said, "gc")) {
			continue
		}
		if k.source == "certificate" && !certificates {
			continue
		}
		var of []string
		for _, id := range ids {
			if s(methods[id], "source") == k.source {
				of = append(of, id)
			}
		}
		if len(of) == 0 {
			continue
		}
		slices.SortStableFunc(of, func(x, y string) int {
			bx, by := balance(methods[x]), balance(methods[y])
			switch {
			case bx < by:
				return -1
			case bx > by:
				return 1
			}
			return 0
		})
		if hasAny(lower, "larger", "largest", "bigger", "biggest", "highest") {
			return of[len(of)-1]
		}
		return of[0]
	}
	return ""
}

// listMethods names a profile's payment methods.
func listMethods(methods map[string]any, certificates bool) string {
	var out []string
	for _, id := range sortedKeys(methods) {
		p := methods[id]
		switch s(p, "source") {
		case "credit_card":
			out = append(out, fmt.Sprintf("%s (%s ending in %s)", id, s(p, "brand"), s(p, "last_four")))
		case "gift_card", "certificate":
			if s(p, "source") == "certificate" && !certificates {
				continue
			}
			out = append(out, fmt.Sprintf("%s (balance %s)", id, moneyText(balance(p))))
		default:
			out = append(out, id)
		}
	}
	return strings.Join(out, ", ")
}

// airlineInfo answers a question about the user's balances or baggage
// allowance, once.
func (a *agent) airlineInfo(r request, profile any) (action, bool) {
	for i, e := range a.c.events {
		if e.kind == "say" && strings.HasPrefix(e.text, infoMark) && a.userIndex(i) >= r.at {
			return action{}, true
		}
	}
	var facts []string
	switch {
	case hasAny(r.text, "balance", "sum", "how much"):
		methods := m(profile, "payment_methods")
		for _, src := range []string{"gift_card", "certificate"} {
			total, n := 0.0, 0
			for _, id := range sortedKeys(methods) {
				if s(methods[id], "source") == src {
					facts = append(facts, fmt.Sprintf("%s has %s dollars", id, moneyText(balance(methods[id]))))
					total += balance(methods[id])
					n++
				}
			}
			if n > 0 {
				facts = append(facts, fmt.Sprintf("your %s balances add up to %s dollars", strings.ReplaceAll(src, "_", " "), moneyText(total)))
			}
		}
	case hasWord(r.text, "bag", "baggage", "suitcase", "luggage", "allowance"):
		ids := reservationIDs(a.userSaid())
		for _, id := range ids {
			res := a.reservation(id)
			if res == nil {
				args := obj{{"reservation_id", id}}
				if a.failures("get_reservation_details", args) > 0 {
					continue
				}
				return a.call("get_reservation_details", args, "I need the reservation's cabin and passengers."), false
			}
			free := freeBags[s(profile, "membership")][s(res, "cabin")] * len(arr(res, "passengers"))
			facts = append(facts, fmt.Sprintf("reservation %s (%s, %s member) has %d free checked bags and %d checked in total",
				id, strings.ReplaceAll(s(res, "cabin"), "_", " "), s(profile, "membership"), free, int(f(res, "total_baggages"))))
		}
	}
	if len(facts) == 0 {
		return a.say(infoMark + "I could not find that information. " + anythingElse), false
	}
	return a.say(infoMark + strings.Join(facts, "; ") + ". " + anythingElse), false
}
