package tau

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	agentaction "github.com/reasonbench/reasonbench/strategies/action"
)

// A small made-up world for scripted episodes: the tools of both domains
// that the simulated agent uses, over a few users, reservations, orders and
// products (invented, in the reference's data shapes). It stands in for
// tasks/tau, which this package must not depend on.

type world struct {
	users, reservations, orders, products map[string]map[string]any
	writes                                []string // "tool args" of each successful write, in order
	ended                                 bool
}

func newWorld() *world {
	var w world
	must := func(s string, v any) {
		if err := json.Unmarshal([]byte(s), v); err != nil {
			panic(err)
		}
	}
	must(`{
	 "mia_li_3668": {"name": {"first_name": "Mia", "last_name": "Li"}, "email": "mia.li@example.com", "dob": "1990-04-05",
	   "address": {"address1": "1 Main Street", "address2": "", "city": "Austin", "country": "USA", "state": "TX", "zip": "78750"},
	   "payment_methods": {"credit_card_4421486": {"source": "credit_card", "brand": "visa", "last_four": "7447", "id": "credit_card_4421486"},
	     "gift_card_1111111": {"source": "gift_card", "amount": 80, "id": "gift_card_1111111"}},
	   "membership": "gold", "reservations": ["AB12CD", "ZX98YU"]},
	 "yusuf_rossi_9620": {"name": {"first_name": "Yusuf", "last_name": "Rossi"}, "email": "yusuf.rossi@example.com",
	   "address": {"address1": "763 Broadway", "address2": "Suite 135", "city": "Philadelphia", "country": "USA", "state": "PA", "zip": "19122"},
	   "payment_methods": {"credit_card_9513926": {"source": "credit_card", "brand": "mastercard", "last_four": "2478", "id": "credit_card_9513926"},
	     "gift_card_7777777": {"source": "gift_card", "balance": 40, "id": "gift_card_7777777"}},
	   "orders": ["#W2378156", "#W1111111"]}
	}`, &w.users)
	must(`{
	 "AB12CD": {"reservation_id": "AB12CD", "user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy",
	   "flights": [{"origin": "JFK", "destination": "SEA", "flight_number": "HAT069", "date": "2024-05-20", "price": 121}],
	   "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_history": [{"payment_id": "credit_card_4421486", "amount": 121}],
	   "created_at": "2024-05-14T18:00:00", "total_baggages": 1, "nonfree_baggages": 0, "insurance": "no"},
	 "ZX98YU": {"reservation_id": "ZX98YU", "user_id": "mia_li_3668", "origin": "ORD", "destination": "BOS", "flight_type": "one_way", "cabin": "basic_economy",
	   "flights": [{"origin": "ORD", "destination": "BOS", "flight_number": "HAT100", "date": "2024-05-22", "price": 60}],
	   "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_history": [{"payment_id": "credit_card_4421486", "amount": 60}],
	   "created_at": "2024-05-01T10:00:00", "total_baggages": 0, "nonfree_baggages": 0, "insurance": "no"}
	}`, &w.reservations)
	must(`{
	 "#W2378156": {"order_id": "#W2378156", "user_id": "yusuf_rossi_9620", "status": "delivered",
	   "items": [{"name": "Mechanical Keyboard", "product_id": "1656367028", "item_id": "1151293680", "price": 272.33, "options": {"switch type": "linear", "backlight": "RGB", "size": "full size"}},
	     {"name": "Smart Watch", "product_id": "6945232052", "item_id": "9408160950", "price": 381.26, "options": {"color": "gold", "band material": "leather"}}],
	   "payment_history": [{"transaction_type": "payment", "amount": 653.59, "payment_method_id": "credit_card_9513926"}]},
	 "#W1111111": {"order_id": "#W1111111", "user_id": "yusuf_rossi_9620", "status": "pending",
	   "items": [{"name": "Desk Lamp", "product_id": "6817146515", "item_id": "8384507844", "price": 137.94, "options": {"color": "white", "brightness": "medium"}}],
	   "payment_history": [{"transaction_type": "payment", "amount": 137.94, "payment_method_id": "credit_card_9513926"}]}
	}`, &w.orders)
	must(`{
	 "1656367028": {"name": "Mechanical Keyboard", "product_id": "1656367028", "variants": {
	   "1151293680": {"item_id": "1151293680", "options": {"switch type": "linear", "backlight": "RGB", "size": "full size"}, "available": true, "price": 272.33},
	   "7706410293": {"item_id": "7706410293", "options": {"switch type": "clicky", "backlight": "RGB", "size": "full size"}, "available": true, "price": 269.16},
	   "9690244451": {"item_id": "9690244451", "options": {"switch type": "clicky", "backlight": "RGB", "size": "60%"}, "available": false, "price": 236.51}}},
	 "6945232052": {"name": "Smart Watch", "product_id": "6945232052", "variants": {
	   "9408160950": {"item_id": "9408160950", "options": {"color": "gold", "band material": "leather"}, "available": true, "price": 381.26}}},
	 "6817146515": {"name": "Desk Lamp", "product_id": "6817146515", "variants": {
	   "8384507844": {"item_id": "8384507844", "options": {"color": "white", "brightness": "medium"}, "available": true, "price": 137.94},
	   "1569765161": {"item_id": "1569765161", "options": {"color": "black", "brightness": "medium"}, "available": true, "price": 140.0}}}
	}`, &w.products)
	return &w
}

// toolSpec is a tool as offered to the agent.
type toolSpec struct {
	name, desc string
	params     string
}

var airlineSpecs = []toolSpec{
	{"get_user_details", "Get the details of an user.", `{"type": "object", "properties": {"user_id": {"type": "string"}}, "required": ["user_id"]}`},
	{"get_reservation_details", "Get the details of a reservation.", `{"type": "object", "properties": {"reservation_id": {"type": "string"}}, "required": ["reservation_id"]}`},
	{"list_all_airports", "List all airports and their cities.", `{"type": "object", "properties": {}, "required": []}`},
	{"cancel_reservation", "Cancel the whole reservation.", `{"type": "object", "properties": {"reservation_id": {"type": "string"}}, "required": ["reservation_id"]}`},
	{"update_reservation_baggages", "Update the baggage information of a reservation.", `{"type": "object", "properties": {"reservation_id": {"type": "string"}, "total_baggages": {"type": "integer"}, "nonfree_baggages": {"type": "integer"}, "payment_id": {"type": "string"}}, "required": ["reservation_id", "total_baggages", "nonfree_baggages", "payment_id"]}`},
	{"transfer_to_human_agents", "Transfer the user to a human agent.", `{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}`},
}

var retailSpecs = []toolSpec{
	{"find_user_id_by_email", "Find user id by email.", `{"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}`},
	{"find_user_id_by_name_zip", "Find user id by first name, last name, and zip code.", `{"type": "object", "properties": {"first_name": {"type": "string"}, "last_name": {"type": "string"}, "zip": {"type": "string"}}, "required": ["first_name", "last_name", "zip"]}`},
	{"get_user_details", "Get the details of a user.", `{"type": "object", "properties": {"user_id": {"type": "string"}}, "required": ["user_id"]}`},
	{"get_order_details", "Get the status and details of an order.", `{"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}`},
	{"get_product_details", "Get the inventory details of a product.", `{"type": "object", "properties": {"product_id": {"type": "string"}}, "required": ["product_id"]}`},
	{"cancel_pending_order", "Cancel a pending order.", `{"type": "object", "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}}, "required": ["order_id", "reason"]}`},
	{"return_delivered_order_items", "Return some items of a delivered order.", `{"type": "object", "properties": {"order_id": {"type": "string"}, "item_ids": {"type": "array", "items": {"type": "string"}}, "payment_method_id": {"type": "string"}}, "required": ["order_id", "item_ids", "payment_method_id"]}`},
	{"exchange_delivered_order_items", "Exchange items in a delivered order.", `{"type": "object", "properties": {"order_id": {"type": "string"}, "item_ids": {"type": "array", "items": {"type": "string"}}, "new_item_ids": {"type": "array", "items": {"type": "string"}}, "payment_method_id": {"type": "string"}}, "required": ["order_id", "item_ids", "new_item_ids", "payment_method_id"]}`},
	{"modify_pending_order_items", "Modify items in a pending order.", `{"type": "object", "properties": {"order_id": {"type": "string"}, "item_ids": {"type": "array", "items": {"type": "string"}}, "new_item_ids": {"type": "array", "items": {"type": "string"}}, "payment_method_id": {"type": "string"}}, "required": ["order_id", "item_ids", "new_item_ids", "payment_method_id"]}`},
	{"transfer_to_human_agents", "Transfer the user to a human agent.", `{"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}`},
}

// act runs a tool on the world, as the reference's tools answer.
func (w *world) act(name string, raw json.RawMessage) string {
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return "Error: " + err.Error()
	}
	str := func(k string) string { v, _ := args[k].(string); return v }
	dump := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	write := func() { w.writes = append(w.writes, name+" "+string(raw)) }
	switch name {
	case "get_user_details":
		if u, ok := w.users[str("user_id")]; ok {
			return dump(u)
		}
		return "Error: user not found"
	case "get_reservation_details":
		if r, ok := w.reservations[str("reservation_id")]; ok {
			return dump(r)
		}
		return "Error: reservation not found"
	case "list_all_airports":
		return `{"JFK": "New York", "SEA": "Seattle", "ORD": "Chicago", "BOS": "Boston"}`
	case "cancel_reservation", "update_reservation_baggages":
		r, ok := w.reservations[str("reservation_id")]
		if !ok {
			return "Error: reservation not found"
		}
		write()
		if name == "cancel_reservation" {
			r["status"] = "cancelled"
		} else {
			r["total_baggages"], r["nonfree_baggages"] = args["total_baggages"], args["nonfree_baggages"]
		}
		return dump(r)
	case "find_user_id_by_email":
		for id, u := range w.users {
			if u["email"] == str("email") {
				return id
			}
		}
		return "Error: user not found"
	case "find_user_id_by_name_zip":
		for id, u := range w.users {
			n, _ := u["name"].(map[string]any)
			ad, _ := u["address"].(map[string]any)
			if n["first_name"] == str("first_name") && n["last_name"] == str("last_name") && ad["zip"] == str("zip") {
				return id
			}
		}
		return "Error: user not found"
	case "get_order_details":
		if o, ok := w.orders[str("order_id")]; ok {
			return dump(o)
		}
		return "Error: order not found"
	case "get_product_details":
		if p, ok := w.products[str("product_id")]; ok {
			return dump(p)
		}
		return "Error: product not found"
	case "cancel_pending_order", "return_delivered_order_items", "exchange_delivered_order_items", "modify_pending_order_items":
		o, ok := w.orders[str("order_id")]
		if !ok {
			return "Error: order not found"
		}
		write()
		o["status"] = map[string]string{"cancel_pending_order": "cancelled", "return_delivered_order_items": "return requested",
			"exchange_delivered_order_items": "exchange requested", "modify_pending_order_items": "pending (item modified)"}[name]
		return dump(o)
	case "transfer_to_human_agents":
		w.ended = true
		return "Transfer successful"
	}
	return "Unknown action " + name
}

// Stand-ins for the prompts (our own short wording; the shapes are the
// episode loop's).
const (
	testAirlinePolicy = "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST.\n\nAsk for explicit confirmation (yes) before any write."
	testRetailPolicy  = "# Retail agent policy\n\nAuthenticate the user by email, or name and zip code. Ask for explicit confirmation (yes) before any write."
	actInstruction    = "\n# Instruction\nReply in this format:\nAction:\n{\"name\": <tool>, \"arguments\": <object>}\nTo talk to the user use the respond tool."
	reactInstruction  = "\n# Instruction\nReply in this format:\nThought:\n<one line>\nAction:\n{\"name\": <tool>, \"arguments\": <object>}"
	xmlInstruction    = "\n# Instruction\nCall one tool as XML: <tool_name><param>value</param></tool_name>, or write plain text to talk to the user."
	testUserPrompt    = "You are a customer talking with an agent.\n\nInstruction: %s\nRules:\n- One line at a time.\n- When your goals are done, write '###STOP###' alone."
)

// episode plays one scripted episode on the simulator: the agent in a
// protocol, the user with an instruction, mirroring the episode loop
// (strategies/react_episode.go). It returns the conversation as lines.
type episodeLog struct {
	lines   []string
	writes  []string
	stopped bool
	// unconfirmed are the writes not made right after the agent listed
	// exactly that call and the user said yes.
	unconfirmed []string
}

func playEpisode(t *testing.T, model *sim.Model, domain, proto, instruction string, seed int64, userStrategy string) episodeLog {
	t.Helper()
	ctx := context.Background()
	w := newWorld()
	specs := airlineSpecs
	policy := testAirlinePolicy
	if domain == "retail" {
		specs, policy = retailSpecs, testRetailPolicy
	}
	var tools []llm.ToolSpec
	var list []map[string]any
	for _, s := range specs {
		tools = append(tools, llm.ToolSpec{Name: s.name, Description: s.desc, Parameters: json.RawMessage(s.params)})
		list = append(list, map[string]any{"type": "function", "function": map[string]any{"name": s.name, "description": s.desc, "parameters": json.RawMessage(s.params)}})
	}
	system := policy
	if proto != protoTools {
		b, _ := json.Marshal(list)
		system += "\n#Available tools\n" + string(b) + map[string]string{protoAct: actInstruction, protoReAct: reactInstruction, protoXML: xmlInstruction}[proto]
	}
	userSys := fmt.Sprintf(testUserPrompt, instruction)
	if userStrategy == "react" {
		userSys += "\nFormat:\nThought:\n<thought>\n\nUser Response:\n<line>"
	}
	userMsgs := []llm.Message{{Role: "system", Content: userSys}, {Role: "user", Content: "Hello, what can I do for you?"}}
	var log episodeLog
	userSays := func(agentMsg string, turn int) (string, bool) {
		if agentMsg != "" {
			userMsgs = append(userMsgs, llm.Message{Role: "user", Content: agentMsg})
		}
		resp, err := model.Sample(ctx, llm.Request{Messages: userMsgs, Seed: seed + int64(turn)})
		if err != nil {
			t.Fatal(err)
		}
		out := resp.Choices[0].Content
		userMsgs = append(userMsgs, llm.Message{Role: "assistant", Content: out})
		if userStrategy == "react" {
			_, r, ok := strings.Cut(out, reactUser)
			if !ok {
				t.Fatalf("react user reply without %q: %q", reactUser, out)
			}
			out = strings.TrimSpace(r)
		}
		log.lines = append(log.lines, "user: "+out)
		return out, strings.Contains(out, stopMarker)
	}
	first, _ := userSays("", 0)
	msgs := []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: first}}
	lastSay, lastUser := "", first
	temp := 0.0
	for step := 1; step <= 40 && !w.ended; step++ {
		req := llm.Request{Messages: msgs, Seed: seed + int64(step), Temperature: &temp}
		if proto == protoTools {
			req.Tools = tools
		}
		resp, err := model.Sample(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		ch := resp.Choices[0]
		var name string
		var args json.RawMessage
		if proto == protoTools {
			msgs = append(msgs, ch.Message())
			if len(ch.ToolCalls) == 0 {
				name, args = "respond", mustJSON(map[string]string{"content": ch.Content})
			} else {
				name, args = ch.ToolCalls[0].Name, json.RawMessage(ch.ToolCalls[0].Arguments)
				if !json.Valid(args) {
					t.Fatalf("native tool call with arguments that are not JSON: %q", args)
				}
			}
		} else {
			msgs = append(msgs, llm.Message{Role: "assistant", Content: ch.Content})
			var ok bool
			name, args, ok = parseTextReply(t, proto, ch.Content, specs)
			if !ok {
				t.Fatalf("%s reply the episode loop would end on: %q", proto, ch.Content)
			}
		}
		if name == "respond" {
			var r struct{ Content string }
			json.Unmarshal(args, &r)
			log.lines = append(log.lines, "agent: "+r.Content)
			lastSay = r.Content
			reply, stop := userSays(r.Content, step)
			lastUser = reply
			if stop {
				log.stopped = true
				break
			}
			msgs = append(msgs, llm.Message{Role: "user", Content: reply})
			continue
		}
		before := len(w.writes)
		obs := w.act(name, args)
		log.lines = append(log.lines, fmt.Sprintf("call: %s %s -> %.80s", name, args, obs))
		if len(w.writes) > before {
			// The write must come right after the agent listed exactly
			// it and the user said yes.
			tool, listed, ok := readDetails(lastSay)
			if !ok || tool != name || !sameJSON(listed.text(), string(args)) || !affirms(lastUser) {
				log.unconfirmed = append(log.unconfirmed, name+" "+string(args))
			}
		}
		lastSay = ""
		if proto == protoTools {
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: ch.ToolCalls[0].ID, Name: name, Content: obs})
		} else {
			msgs = append(msgs, llm.Message{Role: "user", Content: "API output: " + obs})
		}
	}
	log.writes = w.writes
	return log
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// parseTextReply reads a text protocol's reply as the episode loop does:
// xml with strategies/action.ParseXML (no tool element: said to the user),
// act and react by the text after the last "Action:" (not JSON: said to
// the user; JSON without name or arguments: the episode ends, ok=false).
func parseTextReply(t *testing.T, proto, reply string, specs []toolSpec) (string, json.RawMessage, bool) {
	t.Helper()
	if proto == protoXML {
		act, err := agentaction.ParseXML(reply, func(name string) json.RawMessage {
			for _, s := range specs {
				if s.name == name {
					return json.RawMessage(s.params)
				}
			}
			return nil
		})
		if err != nil {
			return "respond", mustJSON(map[string]string{"content": strings.TrimSpace(reply)}), true
		}
		return act.Name, act.Args, true
	}
	text := reply
	if i := strings.LastIndex(reply, "Action:"); i >= 0 {
		text = reply[i+len("Action:"):]
	}
	text = strings.TrimSpace(text)
	var raw any
	if json.Unmarshal([]byte(text), &raw) != nil {
		return "respond", mustJSON(map[string]string{"content": text}), true
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return "", nil, false
	}
	name, nameOK := obj["name"].(string)
	args, argsOK := obj["arguments"].(map[string]any)
	if !nameOK || !argsOK {
		return "", nil, false
	}
	return name, mustJSON(args), true
}
