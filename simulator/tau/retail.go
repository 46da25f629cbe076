package tau

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The retail agent's request verbs.
var retailVerbs = []string{"cancel", "return", "exchange", "change", "modify", "update", "switch", "swap", "replace",
	"adjust", "know", "wonder", "check", "tell", "transfer", "want", "correct"}

// retailKind classifies a segment of the user's words.
func retailKind(verb, form, seg string) string {
	l := strings.ToLower(seg)
	switch {
	case hasAny(l, "human agent", "real person", "representative", "supervisor", "manager"):
		return "transfer"
	case verb == "cancel":
		if form == "cancelled" || form == "canceled" {
			return ""
		}
		return "cancel"
	case verb == "return":
		if hasAny(l, "in return", "return policy") {
			return ""
		}
		return "return"
	case verb == "exchange" || verb == "swap" || verb == "replace":
		return "swap"
	case verb == "know" || verb == "wonder" || verb == "check" || verb == "tell":
		if hasAny(l, "how many", "how much", "tracking", "balance", "price", "what is", "what are", "which", "when", "status", "cost") {
			return "info"
		}
		return ""
	case verb == "want" || verb == "transfer":
		return ""
	}
	switch {
	case hasWord(l, "address"):
		if hasWord(l, "default", "profile", "user") && !hasWord(l, "order") {
			return "user_address"
		}
		return "address"
	case hasWord(l, "payment", "paypal") || hasAny(l, "gift card", "credit card") && !hasWord(l, "item", "size", "color", "colour"):
		return "payment"
	}
	return "swap"
}

const (
	askAuth  = "Could you please provide your email address, or your first name, last name and zip code?"
	askOrder = "Could you please provide the order id for the "
	infoMark = "Here is what I found: "
)

// retailTools are the writes of each request kind.
var retailTools = map[string][]string{"cancel": {"cancel_pending_order"}, "return": {"return_delivered_order_items"},
	"swap": {"exchange_delivered_order_items", "modify_pending_order_items"}, "address": {"modify_pending_order_address"},
	"payment": {"modify_pending_order_payment"}}

// retail is one turn of the retail agent.
func (a *agent) retail() action {
	uid, act, ok := a.authenticate()
	if !ok {
		return act
	}
	profile := a.lastResult("get_user_details", "user_id", uid)
	if profile == nil {
		return a.call("get_user_details", obj{{"user_id", uid}}, "The user is authenticated; I need their profile.")
	}
	reqs := readRequests(a.userTexts(), retailVerbs, retailKind)
	if len(reqs) == 0 {
		if a.asked(askIntent) >= 3 {
			return a.transfer("The user's request could not be understood.")
		}
		return a.ask(askIntent)
	}
	for _, r := range reqs {
		if act, done := a.retailRequest(r, uid, profile); !done {
			return act
		}
	}
	return a.wrapUp()
}

var (
	nameRE  = regexp.MustCompile(`(?i)\b(?:my name is|name's|i am|i'm|this is|it's)\s+([A-Z][a-z]+)\s+([A-Z][a-z]+)\b`)
	bare7RE = regexp.MustCompile(`\b\d{7}\b`)
)

// authenticate finds the user id by email, or by name and zip code, as
// the policy asks even when the user gives their user id.
func (a *agent) authenticate() (string, action, bool) {
	for _, tool := range []string{"find_user_id_by_email", "find_user_id_by_name_zip"} {
		if rs := a.results(tool); len(rs) > 0 {
			return strings.Trim(strings.TrimSpace(rs[len(rs)-1].result), `"`), action{}, true
		}
	}
	said := a.userSaid()
	if es := emailRE.FindAllString(said, -1); len(es) > 0 {
		args := obj{{"email", es[len(es)-1]}}
		if a.failures("find_user_id_by_email", args) < 2 {
			return "", a.call("find_user_id_by_email", args, "I should find the user id by their email."), false
		}
	}
	first, last := "", ""
	if ns := nameRE.FindAllStringSubmatch(said, -1); len(ns) > 0 {
		first, last = ns[len(ns)-1][1], ns[len(ns)-1][2]
	} else if ids := userIDRE.FindAllString(said, -1); len(ids) > 0 {
		// The user gave their user id: its words are their name.
		parts := strings.Split(ids[len(ids)-1], "_")
		if len(parts) >= 3 {
			first, last = capital(parts[0]), capital(parts[len(parts)-2])
		}
	}
	zips := zipRE.FindAllString(said, -1)
	if first != "" && len(zips) > 0 {
		args := obj{{"first_name", first}, {"last_name", last}, {"zip", zips[len(zips)-1]}}
		if a.failures("find_user_id_by_name_zip", args) < 2 {
			return "", a.call("find_user_id_by_name_zip", args, "I should find the user id by their name and zip code."), false
		}
	}
	if a.asked(askAuth) >= 3 {
		return "", a.transfer("The user could not be authenticated."), false
	}
	return "", a.ask(askAuth), false
}

func capital(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// retailRequest works on one request: the next step, or done.
func (a *agent) retailRequest(r request, uid string, profile any) (action, bool) {
	switch r.kind {
	case "transfer":
		return a.transfer("The user asks for a human agent: " + oneLine(r.text)), false
	case "info":
		return a.answerInfo(r, profile)
	case "user_address":
		return a.changeUserAddress(r, uid, profile)
	}
	orders, act, ok := a.ordersFor(r, profile)
	if !ok {
		return act, false
	}
	for _, id := range orders {
		if a.orderHandled(r.kind, id) {
			continue
		}
		order := a.order(id)
		if order == nil {
			args := obj{{"order_id", id}}
			if a.failures("get_order_details", args) > 0 {
				if a.saidRefusal(r.kind, id) {
					continue
				}
				return a.refuse(labelOf[r.kind]+" of order "+id, "I could not find it."), false
			}
			return a.call("get_order_details", args, "I need the order's details."), false
		}
		switch r.kind {
		case "cancel":
			return a.cancelOrder(r, id, order), false
		case "return":
			return a.returnItems(r, id, order, profile), false
		case "swap":
			return a.swapItems(r, id, order, profile), false
		case "address":
			return a.changeOrderAddress(r, id, order, profile), false
		case "payment":
			return a.changeOrderPayment(r, id, order, profile), false
		}
	}
	if r.kind == "address" && hasWord(r.text, "default", "profile", "user") {
		return a.changeUserAddress(r, uid, profile)
	}
	return action{}, true
}

// order is the latest view of an order.
func (a *agent) order(id string) any {
	for i := len(a.c.events) - 1; i >= 0; i-- {
		e := a.c.events[i]
		if e.ok() && e.args.str("order_id") == id {
			if v := decode(e.result); s(v, "order_id") == id {
				return v
			}
		}
	}
	return nil
}

// orderHandled reports whether a request on an order was written or
// refused.
func (a *agent) orderHandled(kind, id string) bool {
	for _, e := range a.c.events {
		if e.ok() && slices.Contains(retailTools[kind], e.tool) && e.args.str("order_id") == id {
			return true
		}
	}
	for _, tool := range retailTools[kind] {
		if a.declined(tool, id) {
			return true
		}
	}
	return a.saidRefusal(kind, id)
}

// statusFor is the order status a request needs.
func statusFor(kind string) []string {
	switch kind {
	case "return":
		return []string{"delivered"}
	case "swap":
		return []string{"delivered", "pending"}
	}
	return []string{"pending"}
}

// ordersFor are the orders a request is about: those the user named, else
// (once asked) the user's orders whose items the user named, or all of a
// fitting status when the user says "all".
func (a *agent) ordersFor(r request, profile any) ([]string, action, bool) {
	text := r.text + "\n" + a.replyTo(askOrder+labelOf[r.kind])
	ids := orderIDs(text)
	if len(ids) == 0 {
		for _, n := range bare7RE.FindAllString(text, -1) {
			ids = appendNew(ids, "#W"+n)
		}
	}
	if len(ids) > 0 {
		return ids, action{}, true
	}
	all := hasWord(r.text, "all", "every", "everything")
	if !all && a.asked(askOrder+labelOf[r.kind]) == 0 {
		return nil, a.ask(askOrder + labelOf[r.kind] + "?"), false
	}
	mine := strs(arr(profile, "orders"))
	for _, id := range mine {
		args := obj{{"order_id", id}}
		if a.order(id) == nil && a.failures("get_order_details", args) == 0 {
			return nil, a.call("get_order_details", args, "I should check the user's orders."), false
		}
	}
	said := r.text + "\n" + a.replyTo(askItems)
	type cand struct {
		id    string
		score int
	}
	var cands []cand
	for _, id := range mine {
		order := a.order(id)
		if order == nil || !slices.Contains(statusFor(r.kind), s(order, "status")) {
			continue
		}
		score := 0
		for _, it := range arr(order, "items") {
			score += itemMatch(s(it, "name"), said)
		}
		if all || score > 0 {
			cands = append(cands, cand{id, score})
		}
	}
	if len(cands) == 0 {
		if r.kind == "swap" || r.kind == "return" {
			if a.asked(askItems) < 2 {
				return nil, a.ask(askItems), false
			}
		}
		return nil, a.refuse(labelOf[r.kind], "I found no order of yours it can apply to."), false
	}
	if all || r.kind == "return" || r.kind == "swap" {
		// Every order holding an item the user named.
		var out []string
		for _, c := range cands {
			out = append(out, c.id)
		}
		return out, action{}, true
	}
	slices.SortStableFunc(cands, func(x, y cand) int { return y.score - x.score })
	ranked := make([]string, len(cands))
	for i, c := range cands {
		ranked[i] = c.id
	}
	return []string{ranked[a.choose("order:"+r.kind, ranked)]}, action{}, true
}

const askItems = "Which items would you like to change, and how?"

// itemMatch is how many of an item name's words the text says, 0 unless
// it says the name's last word (its noun: "Smart Watch" is not named by
// "smart thermostat") or the name run together ("tshirt").
func itemMatch(name, text string) int {
	tw := wordSet(text)
	ws := words(name)
	if len(ws) == 0 {
		return 0
	}
	joined := strings.Join(ws, "")
	if !tw[ws[len(ws)-1]] && !tw[joined] && !tw[stem(joined)] {
		return 0
	}
	n := 0
	for _, w := range ws {
		if tw[w] {
			n++
		}
	}
	return max(n, 1)
}

// matchedItems are an order's items the user named (all of them if the
// user says "all" or "everything").
func matchedItems(order any, text string) []any {
	items := arr(order, "items")
	if hasWord(text, "all", "everything", "whole", "entire") {
		return items
	}
	var out []any
	for _, it := range items {
		if itemMatch(s(it, "name"), text) > 0 {
			out = append(out, it)
		}
	}
	return out
}

func itemNames(items []any) string {
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprintf("%s (item %s, %s)", s(it, "name"), s(it, "item_id"), optionsText(m(it, "options"))))
	}
	return strings.Join(out, "; ")
}

func optionsText(opts map[string]any) string {
	var out []string
	for _, k := range sortedKeys(opts) {
		out = append(out, fmt.Sprintf("%s %v", k, opts[k]))
	}
	return strings.Join(out, ", ")
}

const askCancelOrder = "What is the reason for the cancellation: 'no longer needed' or 'ordered by mistake'?"

// cancelOrder asks to cancel a pending order.
func (a *agent) cancelOrder(r request, id string, order any) action {
	if s(order, "status") != "pending" && a.checks() {
		return a.refuse(labelOf["cancel"]+" of order "+id, "only pending orders can be cancelled, and its status is "+s(order, "status")+".")
	}
	said := a.userSaid()
	reason := ""
	switch {
	case hasAny(said, "mistake", "by accident", "accidentally"):
		reason = "ordered by mistake"
	case hasAny(said, "no longer need", "don't need", "do not need", "not need", "no need", "no longer want", "changed my mind"):
		reason = "no longer needed"
	case a.asked(askCancelOrder) == 0:
		return a.ask(askCancelOrder)
	default:
		reason = "no longer needed"
	}
	return a.confirm(labelOf["cancel"]+" of order "+id, fmt.Sprintf("I will cancel order %s (%s) for the reason '%s'; it is refunded to the original payment method.", id, itemNames(arr(order, "items")), reason),
		"cancel_pending_order", obj{{"order_id", id}, {"reason", reason}})
}

// originalPayment is the payment method an order was paid with.
func originalPayment(order any) string {
	for _, p := range arr(order, "payment_history") {
		if s(p, "transaction_type") == "payment" || s(p, "transaction_type") == "" {
			return s(p, "payment_method_id")
		}
	}
	return ""
}

const askRefund = "Which payment method should be used for the refund or the price difference: the original one ("

// refundMethod is where money goes: a payment method the user named, else
// (once asked) the order's original one. Returns may use only the original
// method or a gift card.
func (a *agent) refundMethod(order, profile any, giftOrOriginal bool) (string, action, bool) {
	methods := m(profile, "payment_methods")
	orig := originalPayment(order)
	said := a.userSaid()
	pick := paymentMentioned(said, methods, false)
	if pick == "" && !hasAny(said, "original") && a.asked(askRefund) == 0 {
		return "", a.ask(askRefund + orig + "), or another of yours: " + listMethods(methods, false) + "?"), false
	}
	if pick == "" || hasAny(said, "original") {
		return orig, action{}, true
	}
	if giftOrOriginal && pick != orig && s(methods[pick], "source") != "gift_card" && a.checks() {
		return orig, action{}, true
	}
	return pick, action{}, true
}

// returnItems asks to return items of a delivered order.
func (a *agent) returnItems(r request, id string, order, profile any) action {
	if s(order, "status") != "delivered" && a.checks() {
		return a.refuse(labelOf["return"]+" of order "+id, "only delivered orders can be returned, and its status is "+s(order, "status")+".")
	}
	text := r.text + "\n" + a.replyTo(askItems)
	items := matchedItems(order, text)
	if len(items) == 0 {
		if a.asked(askItems) < 2 {
			return a.ask(askItems + " Order " + id + " has: " + itemNames(arr(order, "items")) + ".")
		}
		return a.refuse(labelOf["return"]+" of order "+id, "I do not know which items to return.")
	}
	var ids []string
	total := 0.0
	for _, it := range items {
		ids = append(ids, s(it, "item_id"))
		total += f(it, "price")
	}
	pay, act, ok := a.refundMethod(order, profile, true)
	if !ok {
		return act
	}
	return a.confirm(labelOf["return"]+" of order "+id, fmt.Sprintf("I will return from order %s: %s, a refund of %s dollars to %s. You will receive an email about how to return the items.", id, itemNames(items), moneyText(total), pay),
		"return_delivered_order_items", obj{{"order_id", id}, {"item_ids", ids}, {"payment_method_id", pay}})
}

// swapItems asks to exchange items of a delivered order, or modify items
// of a pending one, each for a variant of its product that has the
// options the user asked for.
func (a *agent) swapItems(r request, id string, order, profile any) action {
	status := s(order, "status")
	tool := "exchange_delivered_order_items"
	if status == "pending" {
		tool = "modify_pending_order_items"
	} else if status != "delivered" && a.checks() {
		return a.refuse(labelOf["swap"]+" of order "+id, "only delivered orders can be exchanged and pending ones modified, and its status is "+status+".")
	}
	text := r.text + "\n" + a.replyTo(askItems)
	items := matchedItems(order, text)
	if len(items) == 0 {
		if a.asked(askItems) < 2 {
			return a.ask(askItems + " Order " + id + " has: " + itemNames(arr(order, "items")) + ".")
		}
		return a.refuse(labelOf["swap"]+" of order "+id, "I do not know which items to change.")
	}
	var olds, news []string
	var lines []string
	for _, it := range items {
		pid := s(it, "product_id")
		product := a.lastResult("get_product_details", "product_id", pid)
		if product == nil {
			args := obj{{"product_id", pid}}
			if a.failures("get_product_details", args) > 0 {
				continue
			}
			return a.call("get_product_details", args, "I need the product's variants for the "+s(it, "name")+".")
		}
		nid, ok := a.newVariant(it, product, text)
		if !ok {
			continue
		}
		olds = append(olds, s(it, "item_id"))
		news = append(news, nid)
		lines = append(lines, fmt.Sprintf("%s %s to %s (%s)", s(it, "name"), s(it, "item_id"), nid, optionsText(m(m(m(product, "variants"), nid), "options"))))
	}
	if len(olds) == 0 {
		if a.asked(askItems) < 2 {
			return a.ask(askItems + " Order " + id + " has: " + itemNames(arr(order, "items")) + ".")
		}
		return a.refuse(labelOf["swap"]+" of order "+id, "I found no available item with the options you asked for.")
	}
	pay, act, ok := a.refundMethod(order, profile, false)
	if !ok {
		return act
	}
	verb := "exchange"
	if tool == "modify_pending_order_items" {
		verb = "modify"
	}
	return a.confirm(labelOf["swap"]+" of order "+id, fmt.Sprintf("I will %s in order %s: %s; the price difference is paid with or refunded to %s. Please make sure these are all the items to change, as this can be done only once.",
		verb, id, strings.Join(lines, "; "), pay),
		tool, obj{{"order_id", id}, {"item_ids", olds}, {"new_item_ids", news}, {"payment_method_id", pay}})
}

// newVariant is the available variant of an item's product the user's
// words point to: the most options changed to values the user said, the
// fewest changed to values they did not ("the same item" keeps it).
func (a *agent) newVariant(item, product any, text string) (string, bool) {
	cur := m(item, "options")
	if hasAny(text, "same item", "exact same", "same one", "same specs", "new pair", "brand new one") {
		return s(item, "item_id"), true
	}
	tw := wordSet(text)
	type cand struct {
		id    string
		score int
		price float64
	}
	var cands []cand
	variants := m(product, "variants")
	for _, vid := range sortedKeys(variants) {
		v := variants[vid]
		if vid == s(item, "item_id") || !available(v) {
			continue
		}
		said, other := 0, 0
		for k, val := range m(v, "options") {
			vs := fmt.Sprint(val)
			if fmt.Sprint(cur[k]) == vs {
				continue
			}
			// Said when most of the value's words are ("Google Home"
			// names "Google Assistant" half).
			vw, hit := words(vs), 0
			for _, w := range vw {
				if tw[w] {
					hit++
				}
			}
			if len(vw) > 0 && 2*hit >= len(vw) {
				said++
			} else {
				other++
			}
		}
		if said > 0 {
			cands = append(cands, cand{vid, 2*said - other, f(v, "price")})
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	cheap := hasAny(text, "cheap", "lowest price", "least expensive", "lower price")
	slices.SortStableFunc(cands, func(x, y cand) int {
		if x.score != y.score {
			return y.score - x.score
		}
		if cheap && x.price != y.price {
			if x.price < y.price {
				return -1
			}
			return 1
		}
		return 0
	})
	ranked := make([]string, len(cands))
	for i, c := range cands {
		ranked[i] = c.id
	}
	return ranked[a.choose("variant:"+s(item, "item_id"), ranked)], true
}

func available(v any) bool {
	mm, _ := v.(map[string]any)
	b, _ := mm["available"].(bool)
	return b
}

const askAddress = "What is the new address (street, suite or apartment, city, state and zip code)?"

// changeOrderAddress asks to change a pending order's shipping address.
func (a *agent) changeOrderAddress(r request, id string, order, profile any) action {
	if s(order, "status") != "pending" && a.checks() {
		return a.refuse(labelOf["address"]+" of order "+id, "only pending orders can be modified, and its status is "+s(order, "status")+".")
	}
	addr, act, ok := a.newAddress(r, profile, s(m(order, "address"), "address1"))
	if !ok {
		return act
	}
	return a.confirm(labelOf["address"]+" of order "+id, fmt.Sprintf("I will change the shipping address of order %s to %s.", id, addressText(addr)),
		"modify_pending_order_address", append(obj{{"order_id", id}}, addr...))
}

// changeUserAddress asks to change the user's default address.
func (a *agent) changeUserAddress(r request, uid string, profile any) (action, bool) {
	for _, e := range a.c.events {
		if e.tool == "modify_user_address" && e.ok() {
			return action{}, true
		}
	}
	if a.saidRefusal("user_address", "") || a.declined("modify_user_address", "") {
		return action{}, true
	}
	addr, act, ok := a.newAddress(r, profile, s(m(profile, "address"), "address1"))
	if !ok {
		return act, false
	}
	return a.confirm(labelOf["user_address"], fmt.Sprintf("I will change your default address to %s.", addressText(addr)),
		"modify_user_address", append(obj{{"user_id", uid}}, addr...)), false
}

// newAddress is the address the user asks for: written out in their words,
// else one of theirs (profile or order) in the city they name, else the
// profile's ("default address"); else it asks.
func (a *agent) newAddress(r request, profile any, current string) (obj, action, bool) {
	text := r.text + "\n" + a.replyTo(askAddress)
	if addr, ok := parseAddress(text); ok {
		return addr, action{}, true
	}
	known := []map[string]any{m(profile, "address")}
	for _, id := range strs(arr(profile, "orders")) {
		if o := a.order(id); o != nil {
			known = append(known, m(o, "address"))
		}
	}
	lower := strings.ToLower(text)
	for _, ad := range known {
		if ad == nil || s(ad, "address1") == current {
			continue
		}
		if city := strings.ToLower(s(ad, "city")); city != "" && strings.Contains(lower, city) {
			return addressObj(ad), action{}, true
		}
	}
	if hasWord(text, "default", "profile") && s(m(profile, "address"), "address1") != current {
		return addressObj(m(profile, "address")), action{}, true
	}
	if hasWord(text, "order", "orders") {
		// The address is in another order: look them up first.
		for _, id := range strs(arr(profile, "orders")) {
			args := obj{{"order_id", id}}
			if a.order(id) == nil && a.failures("get_order_details", args) == 0 {
				return nil, a.call("get_order_details", args, "The new address is in one of the user's orders."), false
			}
		}
	}
	if a.asked(askAddress) < 2 {
		return nil, a.ask(askAddress), false
	}
	return nil, a.refuse(labelOf[r.kind], "I do not have the new address."), false
}

func addressObj(ad map[string]any) obj {
	return obj{{"address1", s(ad, "address1")}, {"address2", s(ad, "address2")}, {"city", s(ad, "city")},
		{"state", s(ad, "state")}, {"country", s(ad, "country")}, {"zip", s(ad, "zip")}}
}

func addressText(addr obj) string {
	var parts []string
	for _, m := range addr {
		if v, _ := m.val.(string); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ", ")
}

var addressRE = regexp.MustCompile(`\b(\d+ [A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*(?: (?:Street|St|Avenue|Ave|Road|Rd|Drive|Dr|Lane|Ln|Boulevard|Blvd|Way|Court|Ct|Place|Pl|Highway|Parkway|Terrace))?)\.?,\s*(?:((?:Suite|Apt|Apartment|Unit) #?\w+),\s*)?([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*),\s*(?:([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*),?\s*)?(\d{5})\b`)

// parseAddress reads "123 Elm Street, Suite 4, Austin, TX, 78712".
func parseAddress(text string) (obj, bool) {
	mm := addressRE.FindStringSubmatch(text)
	if mm == nil {
		return nil, false
	}
	state := mm[4]
	if code, ok := stateCodes[strings.ToLower(state)]; ok {
		state = code
	}
	if state == "" {
		state = zipState(mm[5])
	}
	return obj{{"address1", mm[1]}, {"address2", mm[2]}, {"city", mm[3]}, {"state", state}, {"country", "USA"}, {"zip", mm[5]}}, true
}

// zipState is the state of a zip code's first digits where a model would
// know it (the largest cities), else "".
func zipState(zip string) string {
	switch {
	case strings.HasPrefix(zip, "100"), strings.HasPrefix(zip, "101"), strings.HasPrefix(zip, "102"):
		return "NY"
	case strings.HasPrefix(zip, "606"):
		return "IL"
	case strings.HasPrefix(zip, "900"):
		return "CA"
	case strings.HasPrefix(zip, "770"):
		return "TX"
	}
	return ""
}

var stateCodes = map[string]string{"alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA",
	"colorado": "CO", "connecticut": "CT", "delaware": "DE", "florida": "FL", "georgia": "GA", "hawaii": "HI", "idaho": "ID",
	"illinois": "IL", "indiana": "IN", "iowa": "IA", "kansas": "KS", "kentucky": "KY", "louisiana": "LA", "maine": "ME",
	"maryland": "MD", "massachusetts": "MA", "michigan": "MI", "minnesota": "MN", "mississippi": "MS", "missouri": "MO",
	"montana": "MT", "nebraska": "NE", "nevada": "NV", "new hampshire": "NH", "new jersey": "NJ", "new mexico": "NM",
	"new york": "NY", "north carolina": "NC", "north dakota": "ND", "ohio": "OH", "oklahoma": "OK", "oregon": "OR",
	"pennsylvania": "PA", "rhode island": "RI", "south carolina": "SC", "south dakota": "SD", "tennessee": "TN",
	"texas": "TX", "utah": "UT", "vermont": "VT", "virginia": "VA", "washington": "WA", "west virginia": "WV",
	"wisconsin": "WI", "wyoming": "WY", "district of columbia": "DC"}

// changeOrderPayment asks to pay a pending order with another method.
func (a *agent) changeOrderPayment(r request, id string, order, profile any) action {
	if s(order, "status") != "pending" && a.checks() {
		return a.refuse(labelOf["payment"]+" of order "+id, "only pending orders can be modified, and its status is "+s(order, "status")+".")
	}
	methods := m(profile, "payment_methods")
	pick := paymentMentioned(a.userSaid(), methods, false)
	if pick == "" || pick == originalPayment(order) {
		const ask = "Which payment method would you like to use instead? You have: "
		if a.asked(ask) < 2 {
			return a.ask(ask + listMethods(methods, false) + ".")
		}
		return a.refuse(labelOf["payment"]+" of order "+id, "the new payment method must differ from the original one.")
	}
	return a.confirm(labelOf["payment"]+" of order "+id, fmt.Sprintf("I will change the payment method of order %s to %s.", id, pick),
		"modify_pending_order_payment", obj{{"order_id", id}, {"payment_method_id", pick}})
}

// answerInfo answers a question about the user's orders, gift card
// balances or a product's options, once.
func (a *agent) answerInfo(r request, profile any) (action, bool) {
	for i, e := range a.c.events {
		if e.kind == "say" && strings.HasPrefix(e.text, infoMark) && a.userIndex(i) >= r.at {
			return action{}, true
		}
	}
	text := strings.ToLower(r.text)
	var facts []string
	switch {
	case hasAny(text, "balance"):
		methods := m(profile, "payment_methods")
		for _, id := range sortedKeys(methods) {
			if s(methods[id], "source") == "gift_card" {
				facts = append(facts, fmt.Sprintf("gift card %s has a balance of %s dollars", id, moneyText(balance(methods[id]))))
			}
		}
	case hasAny(text, "tracking", "status", "when", "arriv", "shipped"):
		orders := orderIDs(a.userSaid())
		if len(orders) == 0 {
			orders = strs(arr(profile, "orders"))
		}
		for _, id := range orders {
			o := a.order(id)
			if o == nil {
				args := obj{{"order_id", id}}
				if a.failures("get_order_details", args) > 0 {
					continue
				}
				return a.call("get_order_details", args, "I need the order's details to answer."), false
			}
			var tracking []string
			for _, fl := range arr(o, "fulfillments") {
				tracking = append(tracking, strs(arr(fl, "tracking_id"))...)
			}
			facts = append(facts, fmt.Sprintf("order %s is %s (tracking %s)", id, s(o, "status"), strings.Join(tracking, ", ")))
		}
	default:
		// A product: its available options and prices.
		list := a.lastResult("list_all_product_types", "", "")
		if list == nil {
			if !a.c.tools["list_all_product_types"] || len(a.results("list_all_product_types")) > 0 {
				return a.say(infoMark + "I could not find that information."), false
			}
			return a.call("list_all_product_types", obj{}, "I need the product list to answer."), false
		}
		names, _ := list.(map[string]any)
		best, score := "", 0
		for _, name := range sortedKeys(names) {
			if n := itemMatch(name, r.text); n > score {
				best, score = name, n
			}
		}
		if best == "" {
			return a.say(infoMark + "I could not find that product."), false
		}
		pid, _ := names[best].(string)
		product := a.lastResult("get_product_details", "product_id", pid)
		if product == nil {
			return a.call("get_product_details", obj{{"product_id", pid}}, "I need the product's variants to answer."), false
		}
		n, lo, hi := 0, 0.0, 0.0
		variants := m(product, "variants")
		for _, vid := range sortedKeys(variants) {
			if v := variants[vid]; available(v) {
				p := f(v, "price")
				if n == 0 || p < lo {
					lo = p
				}
				hi = max(hi, p)
				n++
			}
		}
		facts = append(facts, fmt.Sprintf("%s has %d available options, priced from %s to %s dollars", best, n, moneyText(lo), moneyText(hi)))
	}
	if len(facts) == 0 {
		return a.say(infoMark + "I could not find that information."), false
	}
	return a.say(infoMark + strings.Join(facts, "; ") + ". " + anythingElse), false
}

func (a *agent) say(text string) action { return action{say: text} }

// userIndex is how many user messages came before event i.
func (a *agent) userIndex(i int) int {
	n := 0
	for _, e := range a.c.events[:i] {
		if e.kind == "user" {
			n++
		}
	}
	return n - 1
}
