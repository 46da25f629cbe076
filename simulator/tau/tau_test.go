package tau

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
)

func model(t testing.TB, p sim.Params) *sim.Model {
	t.Helper()
	m, err := sim.New(p, Responder{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exact is a noise-free simulated model: its considered step every time.
func exact() sim.Params {
	p := sim.DefaultParams()
	p.Skill, p.Slip, p.Misjudge = 1, 0, 0
	return p
}

var protocols = []string{protoTools, protoAct, protoReAct, protoXML}

// scripted are episodes on the made-up world with the writes a noise-free
// agent and user reach.
var scripted = []struct {
	name, domain, instruction string
	writes                    []string
}{
	{"retail exchange", "retail",
		"You are Yusuf Rossi in 19122. You received your order #W2378156 and wish to exchange the mechanical keyboard for a similar one but with clicky switches. You are detail-oriented.",
		[]string{`exchange_delivered_order_items {"order_id":"#W2378156","item_ids":["1151293680"],"new_item_ids":["7706410293"],"payment_method_id":"credit_card_9513926"}`}},
	{"retail return, order found by its items", "retail",
		"Your name is Yusuf Rossi and your email is yusuf.rossi@example.com. You want to return the smart watch you received. You want the refund on your gift card.",
		[]string{`return_delivered_order_items {"order_id":"#W2378156","item_ids":["9408160950"],"payment_method_id":"gift_card_7777777"}`}},
	{"retail cancel", "retail",
		"You are Yusuf Rossi in 19122. You want to cancel your pending order #W1111111 because you no longer need it.",
		[]string{`cancel_pending_order {"order_id":"#W1111111","reason":"no longer needed"}`}},
	{"airline cancel within 24 hours", "airline",
		"Your user id is mia_li_3668. You want to cancel your reservation AB12CD because of a change of plan. You are reactive to the agent.",
		[]string{`cancel_reservation {"reservation_id":"AB12CD"}`}},
	{"airline cancel refused", "airline",
		"Your user id is mia_li_3668. You want to cancel reservation ZX98YU because your plans changed.",
		nil},
	{"airline bags", "airline",
		"Your user id is mia_li_3668. You want to add 2 checked bags to your reservation AB12CD. You want to pay with your card ending in 7447.",
		[]string{`update_reservation_baggages {"reservation_id":"AB12CD","total_baggages":3,"nonfree_baggages":0,"payment_id":"credit_card_4421486"}`}},
}

// TestScriptedEpisodes: noise-free, the agent reaches each episode's
// writes in every protocol and with both user strategies, each write right
// after the user's yes to exactly it, and the user ends with ###STOP###.
func TestScriptedEpisodes(t *testing.T) {
	m := model(t, exact())
	for _, c := range scripted {
		for _, proto := range protocols {
			for _, user := range []string{"llm", "react"} {
				t.Run(c.name+"/"+proto+"/"+user, func(t *testing.T) {
					log := playEpisode(t, m, c.domain, proto, c.instruction, 1, user)
					var got []string
					for _, w := range log.writes {
						name, args, _ := strings.Cut(w, " ")
						var v any
						json.Unmarshal([]byte(args), &v)
						b, _ := json.Marshal(v)
						got = append(got, name+" "+string(b))
					}
					want := normalized(c.writes)
					if !slices.Equal(got, want) || len(log.unconfirmed) > 0 || !log.stopped {
						t.Errorf("writes %q, want %q; unconfirmed %q; stopped %v\n%s", got, want, log.unconfirmed, log.stopped, strings.Join(log.lines, "\n"))
					}
				})
			}
		}
	}
}

// normalized writes each "tool {json}" with its JSON as encoding/json
// orders a map's keys.
func normalized(ws []string) []string {
	var out []string
	for _, w := range ws {
		name, args, _ := strings.Cut(w, " ")
		var v any
		json.Unmarshal([]byte(args), &v)
		b, _ := json.Marshal(v)
		out = append(out, name+" "+string(b))
	}
	return out
}

// TestWritesOnlyAfterYes: at the default noise, in every protocol, over
// many draws, no write is made but right after the agent listed exactly
// that call and the user said yes; every reply parses as the episode loop
// reads it (playEpisode fails on one it would end on). It logs how often
// the scripted writes were reached.
func TestWritesOnlyAfterYes(t *testing.T) {
	m := model(t, sim.DefaultParams())
	for _, proto := range protocols {
		reached, n := 0, 0
		for _, c := range scripted {
			for seed := range int64(12) {
				log := playEpisode(t, m, c.domain, proto, c.instruction, seed*101, "llm")
				if len(log.unconfirmed) > 0 {
					t.Fatalf("%s/%s seed %d: writes without the user's yes to them: %q\n%s", c.name, proto, seed, log.unconfirmed, strings.Join(log.lines, "\n"))
				}
				if slices.Equal(normalized(log.writes), normalized(c.writes)) {
					reached++
				}
				n++
			}
		}
		t.Logf("%s: the scripted writes exactly in %d of %d episodes at the default noise", proto, reached, n)
	}
}

// agentRequest is the retail agent's request after the user said they do
// not remember the order id and its orders were looked up: a choice among
// orders is next.
func agentRequest(w *world) llm.Request {
	call := func(id, name, args string) llm.Message {
		return llm.Message{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	res := func(id, name, args string) llm.Message {
		return llm.Message{Role: "tool", ToolCallID: id, Name: name, Content: w.act(name, json.RawMessage(args))}
	}
	var tools []llm.ToolSpec
	for _, s := range retailSpecs {
		tools = append(tools, llm.ToolSpec{Name: s.name, Description: s.desc, Parameters: json.RawMessage(s.params)})
	}
	msgs := []llm.Message{{Role: "system", Content: testRetailPolicy},
		{Role: "user", Content: "Hi, I'd like to cancel an order. My email is yusuf.rossi@example.com."},
		call("c1", "find_user_id_by_email", `{"email": "yusuf.rossi@example.com"}`), res("c1", "find_user_id_by_email", `{"email": "yusuf.rossi@example.com"}`),
		call("c2", "get_user_details", `{"user_id": "yusuf_rossi_9620"}`), res("c2", "get_user_details", `{"user_id": "yusuf_rossi_9620"}`),
		{Role: "assistant", Content: askOrder + labelOf["cancel"] + "?"},
		{Role: "user", Content: "I don't remember it. I want to cancel everything I can."},
		call("c3", "get_order_details", `{"order_id": "#W2378156"}`), res("c3", "get_order_details", `{"order_id": "#W2378156"}`),
		call("c4", "get_order_details", `{"order_id": "#W1111111"}`), res("c4", "get_order_details", `{"order_id": "#W1111111"}`),
	}
	return llm.Request{Messages: msgs, Tools: tools}
}

// TestDeterministic: the same request gets the same answer; where the
// noise applies (which reservation to pick, the user's judgement of a
// confirmation), other seeds differ, and without noise they do not.
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	answer := func(m *sim.Model, req llm.Request, seed int64) string {
		req.Seed = seed
		resp, err := m.Sample(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		c := resp.Choices[0]
		b, _ := json.Marshal(struct {
			C  string
			TC []llm.ToolCall
		}{c.Content, c.ToolCalls})
		return string(b)
	}
	noisy := sim.DefaultParams()
	noisy.Slip, noisy.Misjudge = 0.5, 0.5
	// The agent with two reservations to choose from, the user unsure.
	w := newWorld()
	agent := llm.Request{Messages: []llm.Message{{Role: "system", Content: testAirlinePolicy},
		{Role: "user", Content: "Hi, I want to cancel a reservation. My user id is mia_li_3668, the reason is a change of plan."},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get_user_details", Arguments: `{"user_id": "mia_li_3668"}`}}},
		{Role: "tool", ToolCallID: "c1", Name: "get_user_details", Content: w.act("get_user_details", json.RawMessage(`{"user_id": "mia_li_3668"}`))},
		{Role: "assistant", Content: askReservation + labelOf["cancel"] + "?"},
		{Role: "user", Content: "I don't remember it."},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c2", Name: "get_reservation_details", Arguments: `{"reservation_id": "AB12CD"}`}}},
		{Role: "tool", ToolCallID: "c2", Name: "get_reservation_details", Content: w.act("get_reservation_details", json.RawMessage(`{"reservation_id": "AB12CD"}`))},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c3", Name: "get_reservation_details", Arguments: `{"reservation_id": "ZX98YU"}`}}},
		{Role: "tool", ToolCallID: "c3", Name: "get_reservation_details", Content: w.act("get_reservation_details", json.RawMessage(`{"reservation_id": "ZX98YU"}`))},
		{Role: "assistant", Content: askWhichTrip},
		{Role: "user", Content: "I'm not sure which one."},
	}}
	for _, s := range airlineSpecs {
		agent.Tools = append(agent.Tools, llm.ToolSpec{Name: s.name, Description: s.desc, Parameters: json.RawMessage(s.params)})
	}
	user := llm.Request{Messages: []llm.Message{
		{Role: "system", Content: fmt.Sprintf(testUserPrompt, "Your user id is mia_li_3668. You want to cancel reservation AB12CD.")},
		{Role: "user", Content: "Hello."},
		{Role: "assistant", Content: "Hi! I'd like to cancel a reservation."},
		{Role: "user", Content: "I will cancel reservation AB12CD. Details: cancel_reservation {\"reservation_id\": \"AB12CD\"}. " + confirmAsk},
	}}
	for _, c := range []struct {
		name string
		req  llm.Request
	}{{"agent", agent}, {"user", user}} {
		t.Run(c.name, func(t *testing.T) {
			m := model(t, noisy)
			if a, b := answer(m, c.req, 7), answer(m, c.req, 7); a != b {
				t.Fatalf("same request, different answers:\n%s\n%s", a, b)
			}
			seen := map[string]bool{}
			for seed := range int64(40) {
				seen[answer(m, c.req, seed)] = true
			}
			if len(seen) < 2 {
				t.Errorf("40 seeds at skill %.1f, slip %.1f, misjudge %.1f gave one answer: %v", noisy.Skill, noisy.Slip, noisy.Misjudge, seen)
			}
			quiet := model(t, exact())
			first := answer(quiet, c.req, 0)
			for seed := range int64(40) {
				if got := answer(quiet, c.req, seed); got != first && c.name == "user" {
					t.Errorf("noise-free user answers differ across seeds: %s vs %s", first, got)
				}
			}
		})
	}
}

// Instructions in the reference's formats (the first five are τ-bench's,
// MIT, sierra-research/tau-bench; the others made up for the test world).
var instructions = []string{
	"Your user id is mia_li_3668. You want to fly from New York to Seattle on May 20 (one way). You do not want to fly before 11am est. You want to fly in economy. You prefer direct flights but one stopover also fine. If there are multiple options, you prefer the one with the lowest price. You have 3 baggages. You do not want insurance. You want to use your two certificates to pay. If only one certificate can be used, you prefer using the larger one, and pay the rest with your 7447 card. You are reactive to the agent and will not say anything that is not asked. Your birthday is in your user profile so you do not prefer to provide it.",
	"You are olivia_gonzalez_2305, you currently reside in Newark, and you will have a crazy half-day trip to Texas. It is in your reservations but you don't remember the reservation id. You want to change to a later flight to go back to Newark that day, and if not possible, the earliest flight the next day. Your current return flight departs 3pm. You do not accept JFK, only EWR. You are reactive to the agent and will not say anything that is not asked. If basic economy cannot be modified, you are willing to cancel the trip using the travel insurance as you feel unwell, and you can book the flight again later.",
	"You are Yusuf Rossi in 19122. You received your order #W2378156 and wish to exchange the mechanical keyboard for a similar one but with clicky switches and the smart thermostat for one compatible with Google Home instead of Apple HomeKit. If there is no keyboard that is clicky, RGB backlight, full size, you'd go for no backlight. You are detail-oriented and want to make sure everything is addressed in one go.",
	"You are mei_kovacs_8020 (zip code 28236) and you want to exchange the water bottle and the desk lamp. You want to exchange the water bottle to a bigger one, and the desk lamp to a less bright one (prefer battery > USB > AC). If the agent asks for confirmation, only exchange the desk lamp. If the agent asks for confirmation again, do not exchange anything, and return the water bottle instead.",
	"You name is Liam Moore and your email is liam.moore6985@example.com. You are direct, patient, organized, optimistic. For #W6908222, exchange Wireless Earbuds {'color': 'blue', 'battery life': '8 hours', 'water resistance': 'IPX4'} to {'color': 'black', 'battery life': '4 hours', 'water resistance': 'not resistant'};",
	"Your user id is mia_li_3668. You want to add 2 checked bags to your reservation AB12CD. You want to pay with your card ending in 7447.",
	"Your name is Yusuf Rossi and your email is yusuf.rossi@example.com. You want to return the smart watch you received.",
}

// TestUserOpensWithoutDetails: the user's first line names the kind of its
// request only: none of the instruction's ids, names, zip codes or emails,
// and no five words in a row of it.
func TestUserOpensWithoutDetails(t *testing.T) {
	m := model(t, sim.DefaultParams())
	for i, ins := range instructions {
		for seed := range int64(5) {
			resp, err := m.Sample(context.Background(), llm.Request{Seed: seed, Messages: []llm.Message{
				{Role: "system", Content: fmt.Sprintf(testUserPrompt, ins)}, {Role: "user", Content: "Hi! How can I help you today?"}}})
			if err != nil {
				t.Fatal(err)
			}
			first := resp.Choices[0].Content
			if first == "" || strings.Contains(first, "\n") || first == sim.Fallback {
				t.Fatalf("instruction %d: first line %q", i, first)
			}
			in := readInstruction(ins)
			for _, secret := range append(append([]string{in.userID, in.email, in.zip, in.first, in.last}, in.orders...), in.reservations...) {
				if secret != "" && strings.Contains(first, secret) {
					t.Errorf("instruction %d: the first line %q tells %q, which nobody asked for", i, first, secret)
				}
			}
			iw, fw := words(ins), words(first)
			for j := 0; j+5 <= len(fw); j++ {
				gram := strings.Join(fw[j:j+5], " ")
				if strings.Contains(strings.Join(iw, " "), gram) {
					t.Errorf("instruction %d: the first line %q repeats the instruction's %q", i, first, gram)
				}
			}
		}
	}
}

// userSays asks the noise-free user for its reply to the agent's message,
// after it opened the conversation.
func userSays(t *testing.T, ins string, agentTurns ...string) string {
	t.Helper()
	msgs := []llm.Message{{Role: "system", Content: fmt.Sprintf(testUserPrompt, ins)}, {Role: "user", Content: "Hello."}}
	m := model(t, exact())
	for _, a := range agentTurns {
		resp, err := m.Sample(context.Background(), llm.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, resp.Choices[0].Message(), llm.Message{Role: "user", Content: a})
	}
	resp, err := m.Sample(context.Background(), llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Choices[0].Content
}

// TestUserAnswers: the user gives what it is asked, says it does not know
// what its instruction does not say, confirms the action it wants and no
// other, and stops when its request is done or it is transferred.
func TestUserAnswers(t *testing.T) {
	airline := "Your user id is mia_li_3668. You want to cancel reservation AB12CD because of a change of plan."
	retail := "You are Yusuf Rossi in 19122. You want to return the smart watch you received."
	email := "Your name is Yusuf Rossi and your email is yusuf.rossi@example.com. You want to return the smart watch."
	done := "Reservation AB12CD has been cancelled. " + anythingElse
	for _, c := range []struct {
		name, ins string
		agent     []string
		want      string // the reply contains it
		not       string // and not this
	}{
		{"user id", airline, []string{askUserID}, "mia_li_3668", ""},
		{"reservation id", airline, []string{askReservation + "cancellation?"}, "AB12CD", ""},
		{"reason", airline, []string{askCancelReason}, "change of plan", ""},
		{"name and zip", retail, []string{askAuth}, "Yusuf Rossi and my zip code is 19122", ""},
		{"email first", email, []string{askAuth}, "yusuf.rossi@example.com", "zip"},
		{"unknown order id", retail, []string{askOrder + "return?"}, "don't remember", "#W"},
		{"what it wants", retail, []string{askIntent}, "return the smart watch", ""},
		{"yes to its request", airline, []string{"I will cancel reservation AB12CD. Details: cancel_reservation {\"reservation_id\": \"AB12CD\"}. " + confirmAsk}, "Yes", ""},
		{"no to another", airline, []string{"I will book a flight for you. Details: book_reservation {\"user_id\": \"mia_li_3668\"}. " + confirmAsk}, "No", ""},
		{"stop when done", airline, []string{askReservation + "cancellation?", done}, stopMarker, ""},
		{"not before", airline, []string{askUserID}, "", stopMarker},
		{"stop when transferred", retail, []string{"I am transferring you to a human agent. Please hold on."}, stopMarker, ""},
		{"condition after refusal", instructions[1], []string{askReservation + "flight change?", refusalMark + "flight change of reservation Z7GOZK: basic economy flights cannot be modified. " + anythingElse}, "willing to cancel", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := userSays(t, c.ins, c.agent...)
			if !strings.Contains(got, c.want) || c.not != "" && strings.Contains(got, c.not) {
				t.Errorf("reply %q: want %q, not %q", got, c.want, c.not)
			}
			if strings.Contains(got, stopMarker) && got != stopMarker {
				t.Errorf("###STOP### not alone: %q", got)
			}
		})
	}
}

// TestSupervisor: the verify user's supervisor passes a one-line response
// and fails a two-line one; the reflection answers in its format; in the
// reference's wording and in the bundled templates'.
func TestSupervisor(t *testing.T) {
	const supervisor = "You are a supervisor of the Agent"
	m := model(t, exact())
	ask := func(prompt string) string {
		resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Choices[0].Content
	}
	verify := func(response string) string {
		return supervisor + " in the conversation. You are given a Transcript.\n\n# Transcript:\nAgent: Hi\n\n# Response:\n" + response + "\n\n-----\n\nClassification:"
	}
	if got := ask(verify("My user id is mia_li_3668.")); got != "true" {
		t.Errorf("one-line response judged %q", got)
	}
	if got := ask(verify("Sure.\nMy user id is mia_li_3668.")); got != "false" {
		t.Errorf("two-line response judged %q", got)
	}
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tau/user_verify", "tau/user_reflect"} {
		text, err := lib.Render(name, map[string]string{"Transcript": "Agent: Hi", "Response": "My user id is mia_li_3668."})
		if err != nil {
			t.Fatal(err)
		}
		got := ask(text)
		if name == "tau/user_verify" && got != "true" || name == "tau/user_reflect" && !strings.HasPrefix(got, "Reflection:") {
			t.Errorf("the bundled %s answered %q", name, got)
		}
	}
	got := ask(supervisor + " in the conversation.\n\n# Transcript:\nAgent: Hi\n\n# Response:\nHello there\n\n# Format:\n\nReflection:\n<the reflection>\n\nResponse:\n<the response>")
	if _, r, ok := strings.Cut(got, "Response:"); !strings.HasPrefix(got, "Reflection:") || !ok || strings.TrimSpace(r) != "Hello there" {
		t.Errorf("reflection %q", got)
	}
}

// TestRecognition: the responder answers τ-bench's prompts only.
func TestRecognition(t *testing.T) {
	r := Responder{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		p    sim.Prompt
		want bool
	}{
		{"airline agent", sim.Prompt{Messages: []llm.Message{{Role: "system", Content: testAirlinePolicy}, {Role: "user", Content: "hi"}}}, true},
		{"retail agent, few-shot", sim.Prompt{Messages: []llm.Message{{Role: "system", Content: testRetailPolicy + "\n\nExample 1:\nuser: hi"}, {Role: "user", Content: "hi"}}}, true},
		{"user", sim.Prompt{Messages: []llm.Message{{Role: "system", Content: fmt.Sprintf(testUserPrompt, "You want help.")}, {Role: "user", Content: "Hi"}}}, true},
		{"user setup", sim.Prompt{Messages: []llm.Message{{Role: "system", Content: "You are a user.\nRules:\n- say '###STOP###' when done"}, {Role: "user", Content: "Hi"}}}, true},
		{"other system prompt", sim.Prompt{Messages: []llm.Message{{Role: "system", Content: "You are a helpful assistant."}, {Role: "user", Content: "hi"}}}, false},
		{"question", sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "Question: who wrote Hamlet?"}}}, false},
		{"reward request", sim.Prompt{Reward: &llm.Reward{}, Messages: []llm.Message{{Role: "system", Content: testAirlinePolicy}}}, false},
	} {
		got, ok := r.Respond(c.p, rng, sim.DefaultParams())
		if ok != c.want {
			t.Errorf("%s: recognised %v, want %v", c.name, ok, c.want)
		}
		if ok && got.Content == "" && len(got.ToolCalls) == 0 {
			t.Errorf("%s: empty answer", c.name)
		}
	}
}
