package tau

import (
	"fmt"
	"slices"
	"strings"
)

const (
	askRoute      = "Where would you like to fly from and to?"
	askTrip       = "Is it a one way or a round trip?"
	askDates      = "On which date would you like to fly (and return, for a round trip)?"
	askPassengers = "Please provide the first name, last name and date of birth of each passenger."
	askInsurance  = "Would you like to buy travel insurance for 30 dollars per passenger?"
)

// book gathers a new reservation's details from the user's words, searches
// its flights and asks to book the option the user's preference picks.
func (a *agent) book(r request, uid string, profile any) (action, bool) {
	for _, e := range a.c.events {
		if e.tool == "book_reservation" && e.ok() {
			return action{}, true
		}
	}
	if a.saidRefusal("book", "") || a.declined("book_reservation", "") {
		return action{}, true
	}
	said := strings.Join(a.userTexts()[r.at:], "\n")
	known := a.knownAirports()
	codes := codesIn(said, known)
	if len(codes) < 2 && known == nil && a.c.tools["list_all_airports"] {
		return a.call("list_all_airports", obj{}, "I need the airport codes of the cities the user named."), false
	}
	if len(codes) < 2 {
		if a.asked(askRoute) < 2 {
			return a.ask(askRoute), false
		}
		return a.refuse(labelOf["book"], "I do not know where you want to fly."), false
	}
	origin, dest := codes[0], codes[1]
	trip := ""
	switch {
	case hasAny(said, "round trip", "round-trip", "roundtrip", "return flight", "come back"):
		trip = "round_trip"
	case hasAny(said, "one way", "one-way"):
		trip = "one_way"
	case a.asked(askTrip) == 0:
		return a.ask(askTrip), false
	default:
		trip = "one_way"
	}
	ds := dates(said, a.year)
	if len(ds) == 0 || trip == "round_trip" && len(ds) < 2 {
		if a.asked(askDates) < 2 {
			return a.ask(askDates), false
		}
		return a.refuse(labelOf["book"], "I do not know the dates of the trip."), false
	}
	cabin := cabinIn(said)
	if cabin == "" {
		if a.asked(askCabin) == 0 {
			return a.ask(askCabin), false
		}
		cabin = "economy"
	}
	direct := hasAny(said, "nonstop", "non-stop", "direct only", "only direct")
	out, act, ok := a.searchFlights(origin, dest, ds[0], direct)
	if !ok {
		return act, false
	}
	pick, ok := a.pickOption(out, cabin, said, "book:out")
	if !ok {
		return a.refuse(labelOf["book"], fmt.Sprintf("there is no available flight from %s to %s on %s in %s.", origin, dest, ds[0], strings.ReplaceAll(cabin, "_", " "))), false
	}
	flights := slices.Clone(pick)
	if trip == "round_trip" {
		back, act, ok := a.searchFlights(dest, origin, ds[1], direct)
		if !ok {
			return act, false
		}
		pickBack, ok := a.pickOption(back, cabin, said, "book:back")
		if !ok {
			return a.refuse(labelOf["book"], fmt.Sprintf("there is no available return flight from %s to %s on %s.", dest, origin, ds[1])), false
		}
		flights = append(flights, pickBack...)
	}
	// Passengers: the user, and each person named with a date of birth.
	name := m(profile, "name")
	passengers := []obj{{{"first_name", s(name, "first_name")}, {"last_name", s(name, "last_name")}, {"dob", s(profile, "dob")}}}
	for _, p := range personDOB.FindAllStringSubmatch(said, -1) {
		if p[1] == s(name, "first_name") && p[2] == s(name, "last_name") {
			continue
		}
		passengers = append(passengers, obj{{"first_name", p[1]}, {"last_name", p[2]}, {"dob", p[3]}})
	}
	if want := countBefore(said, "passenger", "people", "traveler", "person"); want > len(passengers) && a.asked(askPassengers) == 0 {
		return a.ask(askPassengers), false
	}
	n := len(passengers)
	bags := max(0, countBefore(said, "bag", "baggage", "suitcase", "luggage"))
	nonfree := max(0, bags-freeBags[s(profile, "membership")][cabin]*n)
	insurance := ""
	switch {
	case hasAny(said, "no insurance", "not want insurance", "n't want insurance", "not want any insurance", "without insurance",
		"n't need insurance", "not need insurance", "no travel insurance", "n't want travel insurance", "not need any insurance"):
		insurance = "no"
	case hasWord(said, "insurance"):
		insurance = "yes"
	case a.asked(askInsurance) == 0:
		return a.ask(askInsurance), false
	default:
		insurance = "no"
		if affirms(a.replyTo(askInsurance)) {
			insurance = "yes"
		}
	}
	total := 0.0
	var legs []obj
	for _, fl := range flights {
		total += f(m(fl, "prices"), cabin) * float64(n)
		legs = append(legs, obj{{"flight_number", s(fl, "flight_number")}, {"date", s(fl, "date")}})
	}
	if insurance == "yes" {
		total += 30 * float64(n)
	}
	total += 50 * float64(nonfree)
	pays, act, ok := a.splitPayment(profile, total)
	if !ok {
		return act, false
	}
	return a.confirm(labelOf["book"], fmt.Sprintf("I will book a %s %s trip from %s to %s for %d passenger(s) on %s, %d checked bag(s) (%d not free), insurance %s, %s dollars in total, paid with %s.",
		strings.ReplaceAll(trip, "_", " "), strings.ReplaceAll(cabin, "_", " "), origin, dest, n, obj{{"flights", legs}}.text(), bags, nonfree, insurance,
		moneyText(total), obj{{"payment_methods", pays}}.text()),
		"book_reservation", obj{{"user_id", uid}, {"origin", origin}, {"destination", dest}, {"flight_type", trip}, {"cabin", cabin},
			{"flights", legs}, {"passengers", passengers}, {"payment_methods", pays}, {"total_baggages", bags},
			{"nonfree_baggages", nonfree}, {"insurance", insurance}}), false
}

// splitPayment pays total with the methods the user named: a certificate
// first, then gift cards (each up to its balance), the rest by credit
// card.
func (a *agent) splitPayment(profile any, total float64) ([]obj, action, bool) {
	methods := m(profile, "payment_methods")
	said := a.userSaid()
	var chosen []string
	for _, src := range []string{"certificate", "gift_card"} {
		only := map[string]any{}
		for id, p := range methods {
			if s(p, "source") == src {
				only[id] = p
			}
		}
		if id := paymentMentioned(said, only, true); id != "" {
			chosen = append(chosen, id)
		}
	}
	cards := map[string]any{}
	for id, p := range methods {
		if s(p, "source") == "credit_card" {
			cards[id] = p
		}
	}
	if id := paymentMentioned(said, cards, false); id != "" {
		chosen = append(chosen, id)
	}
	if len(chosen) == 0 {
		return nil, a.ask("Which payment method would you like to use? You have: " + listMethods(methods, true) + "."), false
	}
	// A certificate or gift card pays up to its balance; the last method
	// named pays the rest when it is a credit card, else the user is asked
	// for one.
	var out []obj
	left := total
	for _, id := range chosen {
		amount := left
		if s(methods[id], "source") != "credit_card" {
			amount = min(left, balance(methods[id]))
		}
		if amount <= 0 {
			continue
		}
		out = append(out, obj{{"payment_id", id}, {"amount", money(amount)}})
		left -= amount
	}
	if left > 0.005 {
		const ask = "Your balance there does not cover the total. Which credit card would you like to pay the remaining amount with? You have: "
		if a.asked(ask) < 2 {
			return nil, a.ask(fmt.Sprintf("The total is %s dollars. %s%s.", moneyText(total), ask, listMethods(cards, false))), false
		}
		return nil, a.refuse(labelOf["book"], "the payment methods you named do not cover the total."), false
	}
	return out, action{}, true
}

// compensate offers the policy's certificate to an eligible user who
// complains about a cancelled or delayed flight and asks for compensation.
func (a *agent) compensate(r request, uid string, profile any) (action, bool) {
	for _, e := range a.c.events {
		if e.tool == "send_certificate" && e.ok() {
			return action{}, true
		}
	}
	if a.saidRefusal("compensation", "") || a.declined("send_certificate", "") {
		return action{}, true
	}
	mine := strs(arr(profile, "reservations"))
	said := a.userSaid()
	var res any
	id := ""
	for _, rid := range reservationIDs(said) {
		if slices.Contains(mine, rid) {
			id = rid
		}
	}
	if id == "" && flightRE.MatchString(said) {
		// The flight the user named: look the reservations up to find it.
		if act, ok := a.fetchAll(mine); !ok {
			return act, false
		}
		for _, rid := range mine {
			for _, fl := range arr(a.reservation(rid), "flights") {
				if strings.Contains(said, s(fl, "flight_number")) {
					id = rid
				}
			}
		}
	}
	if id == "" {
		if a.asked(askReservation+labelOf["compensation"]) == 0 {
			return a.ask(askReservation + labelOf["compensation"] + "?"), false
		}
		ids, act, ok := a.targets(r, profile)
		if !ok {
			return act, false
		}
		id = ids[0]
	}
	if res = a.reservation(id); res == nil {
		return a.call("get_reservation_details", obj{{"reservation_id", id}}, "I need the reservation's details."), false
	}
	eligible := s(profile, "membership") == "silver" || s(profile, "membership") == "gold" || s(res, "insurance") == "yes" || s(res, "cabin") == "business"
	if !eligible && a.checks() {
		return a.refuse(labelOf["compensation"]+" for reservation "+id, "compensation is offered only to silver and gold members, to passengers with travel insurance, and in business class."), false
	}
	per := 100
	if hasWord(said, "delay", "delayed", "late") {
		per = 50
	}
	amount := per * len(arr(res, "passengers"))
	return a.confirm(labelOf["compensation"]+" for reservation "+id, fmt.Sprintf("As a gesture, I can send you a travel certificate of %d dollars for reservation %s.", amount, id),
		"send_certificate", obj{{"user_id", uid}, {"amount", amount}}), false
}
