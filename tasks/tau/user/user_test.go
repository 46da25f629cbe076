package user

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// scripted is a sampler that records every request and answers with its
// script, in order.
type scripted struct {
	mu      sync.Mutex
	replies []reply
	reqs    []llm.Request
}

// reply is one scripted answer: content, or no choices, or an error.
type reply struct {
	content  string
	noChoice bool
	err      error
}

func (s *scripted) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Messages = slices.Clone(req.Messages)
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		return llm.Response{}, fmt.Errorf("script exhausted at call %s", req.Call)
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	if r.err != nil {
		return llm.Response{}, r.err
	}
	if r.noChoice {
		return llm.Response{}, nil
	}
	return llm.Response{Choices: []llm.Choice{{Content: r.content}}}, nil
}

func say(texts ...string) []reply {
	out := make([]reply, len(texts))
	for i, t := range texts {
		out[i] = reply{content: t}
	}
	return out
}

// testTemplates are short user templates, so the expected requests below
// stay readable; the bundled ones are checked in TestBundledTemplates.
var testTemplates = map[string]string{
	"user_llm":     "SYS-LLM{{if .Instruction}} [{{.Instruction}}]{{end}}",
	"user_react":   "SYS-REACT{{if .Instruction}} [{{.Instruction}}]{{end}}",
	"user_verify":  "VERIFY\n{{.Transcript}}\n=> {{.Response}}",
	"user_reflect": "REFLECT\n{{.Transcript}}\n=> {{.Response}}",
	"user_opening": "HELLO",
}

func testLibrary(t testing.TB) *prompts.Library {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, Folder), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range testTemplates {
		if err := os.WriteFile(filepath.Join(dir, Folder, name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := prompts.WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// action is a call of the simulator: "setup", "reset ARG" or "step ARG".
type action struct {
	op, arg string
	want    string // the returned string
	err     string // the error wanted ("" none); ErrReply when reply is set
	isReply bool   // the error wraps ErrReply
}

type call struct {
	id   string
	msgs []llm.Message
}

func sys(s string) llm.Message  { return llm.Message{Role: "system", Content: s} }
func usr(s string) llm.Message  { return llm.Message{Role: "user", Content: s} }
func asst(s string) llm.Message { return llm.Message{Role: "assistant", Content: s} }

// msgs builds a history: the system turn, the opening, then turns.
func msgs(system string, turns ...llm.Message) []llm.Message {
	return append([]llm.Message{sys(system), usr("HELLO")}, turns...)
}

// check is a single-turn check or reflection request.
func check(kind string, lines []string, response string) []llm.Message {
	return []llm.Message{usr(kind + "\n" + strings.Join(lines, "\n") + "\n=> " + response)}
}

func TestSimulator(t *testing.T) {
	const instr = "You are ann_1; cancel order #W1"
	llmSys, reactSys := "SYS-LLM ["+instr+"]", "SYS-REACT ["+instr+"]"
	head := []string{"System: " + llmSys, "Customer: HELLO"}
	lines := func(more ...string) []string { return append(slices.Clone(head), more...) }
	for _, tc := range []struct {
		name     string
		strategy string
		trial    int
		setup    bool
		script   []reply
		actions  []action
		calls    []call
	}{
		{
			name: "llm with setup", strategy: LLM, trial: 2, setup: true,
			script: say("setup answer", "I need help with an order", "ann_1", "###STOP###"),
			actions: []action{{op: "setup"}, {op: "reset", arg: instr, want: "I need help with an order"},
				{op: "step", arg: "Your user id?", want: "ann_1"}, {op: "step", arg: "Done.", want: "###STOP###"}},
			calls: []call{
				{"t2/user/setup1", msgs("SYS-LLM")},
				{"t2/user/0", msgs(llmSys)},
				{"t2/user/1", msgs(llmSys, asst("I need help with an order"), usr("Your user id?"))},
				{"t2/user/2", msgs(llmSys, asst("I need help with an order"), usr("Your user id?"), asst("ann_1"), usr("Done."))},
			},
		},
		{
			name: "llm without setup", strategy: LLM, trial: 0,
			script:  say("hi"),
			actions: []action{{op: "setup"}, {op: "reset", arg: instr, want: "hi"}},
			calls:   []call{{"t0/user/0", msgs(llmSys)}},
		},
		{
			// An empty reply is None: discarded in setup, an error when the
			// agent would get it.
			name: "llm empty reply", strategy: LLM, trial: 1, setup: true,
			script:  say("", "", "ok"),
			actions: []action{{op: "setup"}, {op: "reset", arg: instr, isReply: true, err: "empty reply"}, {op: "reset", arg: instr, want: "ok"}},
			calls:   []call{{"t1/user/setup1", msgs("SYS-LLM")}, {"t1/user/0", msgs(llmSys)}, {"t1/user/1", msgs(llmSys)}},
		},
		{
			// The constructor resets twice; parse_response returns what
			// follows "Thought:", labels included; the raw reply stays in
			// the history.
			name: "react", strategy: ReAct, trial: 1, setup: true,
			script: say("Thought: a\nUser Response: b", "User Response: c",
				"Thought:\nI greet.\n\nUser Response:\nHi, I want to cancel an order. ",
				"User Response:\n  ann_1\n", "I am done ###STOP### bye", "Thought: x Thought: y"),
			actions: []action{{op: "setup"}, {op: "reset", arg: instr, want: "I greet.\n\nUser Response:\nHi, I want to cancel an order."},
				{op: "step", arg: "Your id?", want: "ann_1"}, {op: "step", arg: "Cancelled.", want: "###STOP###"},
				{op: "step", arg: "More?", isReply: true, err: `"Thought:" 2 times`}},
			calls: []call{
				{"t1/user/setup1", msgs("SYS-REACT")},
				{"t1/user/setup2", msgs("SYS-REACT")},
				{"t1/user/0", msgs(reactSys)},
				{"t1/user/1", msgs(reactSys, asst("Thought:\nI greet.\n\nUser Response:\nHi, I want to cancel an order. "), usr("Your id?"))},
				{"t1/user/2", msgs(reactSys, asst("Thought:\nI greet.\n\nUser Response:\nHi, I want to cancel an order. "), usr("Your id?"),
					asst("User Response:\n  ann_1\n"), usr("Cancelled."))},
				{"t1/user/3", msgs(reactSys, asst("Thought:\nI greet.\n\nUser Response:\nHi, I want to cancel an order. "), usr("Your id?"),
					asst("User Response:\n  ann_1\n"), usr("Cancelled."), asst("I am done ###STOP### bye"), usr("More?"))},
			},
		},
		{
			name: "react setup without labels", strategy: ReAct, trial: 0, setup: true,
			script:  say("Thought: fine", "just words"),
			actions: []action{{op: "setup", isReply: true, err: "no \"Thought:\" or \"User Response:\""}},
			calls:   []call{{"t0/user/setup1", msgs("SYS-REACT")}, {"t0/user/setup2", msgs("SYS-REACT")}},
		},
		{
			name: "react empty reply", strategy: ReAct, trial: 0,
			script:  say("\x1c Thought: \u00a0x\x1f\n", ""),
			actions: []action{{op: "reset", arg: instr, want: "x"}, {op: "step", arg: "?", isReply: true, err: "empty reply"}},
			calls:   []call{{"t0/user/0", msgs(reactSys)}, {"t0/user/1", msgs(reactSys, asst("\x1c Thought: \u00a0x\x1f\n"), usr("?"))}},
		},
		{
			// Setup: an empty reply verified, discarded. Reset: verified at
			// the second attempt. Step 1: no attempt verifies, the last
			// reply is returned and not kept. Step 2: "untrue" verifies.
			name: "verify", strategy: Verify, trial: 3, setup: true,
			script: say("", "TRUE",
				"r1", "False.", "r2", "It is True.",
				"s1", "false", "s2", "no", "s3", "0",
				"u1", "untrue"),
			actions: []action{{op: "setup"}, {op: "reset", arg: instr, want: "r2"},
				{op: "step", arg: "Id?", want: "s3"}, {op: "step", arg: "Well?", want: "u1"}},
			calls: []call{
				{"t3/user/setup1", msgs("SYS-LLM")},
				{"t3/user/setup1/verify1", check("VERIFY", []string{"System: SYS-LLM", "Customer: HELLO"}, "None")},
				{"t3/user/0", msgs(llmSys)},
				{"t3/user/0/verify1", check("VERIFY", lines(), "r1")},
				{"t3/user/0/attempt2", msgs(llmSys)},
				{"t3/user/0/verify2", check("VERIFY", lines(), "r2")},
				{"t3/user/1", msgs(llmSys, asst("r2"), usr("Id?"))},
				{"t3/user/1/verify1", check("VERIFY", lines("Agent: r2", "Customer: Id?"), "s1")},
				{"t3/user/1/attempt2", msgs(llmSys, asst("r2"), usr("Id?"))},
				{"t3/user/1/verify2", check("VERIFY", lines("Agent: r2", "Customer: Id?"), "s2")},
				{"t3/user/1/attempt3", msgs(llmSys, asst("r2"), usr("Id?"))},
				{"t3/user/1/verify3", check("VERIFY", lines("Agent: r2", "Customer: Id?"), "s3")},
				{"t3/user/2", msgs(llmSys, asst("r2"), usr("Id?"), usr("Well?"))},
				{"t3/user/2/verify1", check("VERIFY", lines("Agent: r2", "Customer: Id?", "Customer: Well?"), "u1")},
			},
		},
		{
			name: "verify check without content", strategy: Verify, trial: 0,
			script:  say("r1", ""),
			actions: []action{{op: "reset", arg: instr, isReply: true, err: "check's answer is empty"}},
			calls:   []call{{"t0/user/0", msgs(llmSys)}, {"t0/user/0/verify1", check("VERIFY", lines(), "r1")}},
		},
		{
			name: "verify none verified and empty", strategy: Verify, trial: 0,
			script:  say("a", "no", "b", "no", "", "no"),
			actions: []action{{op: "reset", arg: instr, isReply: true, err: "empty reply"}},
			calls: []call{{"t0/user/0", msgs(llmSys)}, {"t0/user/0/verify1", check("VERIFY", lines(), "a")},
				{"t0/user/0/attempt2", msgs(llmSys)}, {"t0/user/0/verify2", check("VERIFY", lines(), "b")},
				{"t0/user/0/attempt3", msgs(llmSys)}, {"t0/user/0/verify3", check("VERIFY", lines(), "None")}},
		},
		{
			// Reset: verified at once. Step 1: rejected, reflected, the
			// second reply verified; both replies stay in the history, the
			// reflection only in the copy the second reply is asked on.
			// Step 2: both rejected, the first returned. Step 3: a
			// reflection without "Response:".
			name: "reflection", strategy: Reflection, trial: 1, setup: true,
			script: say("hello", "true",
				"r1", "true",
				"s1", "false", "Reflection: too curt.\nResponse:  Could you cancel order #W1, please? \n", "s2", "true",
				"t1", "nope", "Response: x", "t2", "no",
				"v1", "no", "Reflection: none"),
			actions: []action{{op: "setup"}, {op: "reset", arg: instr, want: "r1"},
				{op: "step", arg: "What can I do?", want: "s2"}, {op: "step", arg: "Which order?", want: "t1"},
				{op: "step", arg: "Ok?", isReply: true, err: `0 "Response:"`}},
			calls: []call{
				{"t1/user/setup1", msgs("SYS-LLM")},
				{"t1/user/setup1/verify1", check("VERIFY", []string{"System: SYS-LLM", "Customer: HELLO"}, "hello")},
				{"t1/user/0", msgs(llmSys)},
				{"t1/user/0/verify1", check("VERIFY", lines(), "r1")},
				{"t1/user/1", msgs(llmSys, asst("r1"), usr("What can I do?"))},
				{"t1/user/1/verify1", check("VERIFY", lines("Agent: r1", "Customer: What can I do?"), "s1")},
				{"t1/user/1/reflect1", check("REFLECT", lines("Agent: r1", "Customer: What can I do?"), "s1")},
				{"t1/user/1/attempt2", msgs(llmSys, asst("r1"), usr("What can I do?"), usr("Could you cancel order #W1, please?"))},
				{"t1/user/1/verify2", check("VERIFY", lines("Agent: r1", "Customer: What can I do?", "Customer: Could you cancel order #W1, please?"), "s2")},
				{"t1/user/2", msgs(llmSys, asst("r1"), usr("What can I do?"), asst("s1"), asst("s2"), usr("Which order?"))},
				{"t1/user/2/verify1", check("VERIFY", lines("Agent: r1", "Customer: What can I do?", "Agent: s1", "Agent: s2", "Customer: Which order?"), "t1")},
				{"t1/user/2/reflect1", check("REFLECT", lines("Agent: r1", "Customer: What can I do?", "Agent: s1", "Agent: s2", "Customer: Which order?"), "t1")},
				{"t1/user/2/attempt2", msgs(llmSys, asst("r1"), usr("What can I do?"), asst("s1"), asst("s2"), usr("Which order?"), usr("x"))},
				{"t1/user/2/verify2", check("VERIFY", lines("Agent: r1", "Customer: What can I do?", "Agent: s1", "Agent: s2", "Customer: Which order?", "Customer: x"), "t2")},
				{"t1/user/3", msgs(llmSys, asst("r1"), usr("What can I do?"), asst("s1"), asst("s2"), usr("Which order?"), asst("t1"), asst("t2"), usr("Ok?"))},
				{"t1/user/3/verify1", check("VERIFY", lines("Agent: r1", "Customer: What can I do?", "Agent: s1", "Agent: s2", "Customer: Which order?", "Agent: t1", "Agent: t2", "Customer: Ok?"), "v1")},
				{"t1/user/3/reflect1", check("REFLECT", lines("Agent: r1", "Customer: What can I do?", "Agent: s1", "Agent: s2", "Customer: Which order?", "Agent: t1", "Agent: t2", "Customer: Ok?"), "v1")},
			},
		},
		{
			// An empty first reply reads "None" in the check and the
			// reflection; a verified second reply rescues the turn.
			name: "reflection empty first reply", strategy: Reflection, trial: 0,
			script:  say("", "no", "Response: again\nResponse: twice", "", "no", "Response: fine", "ok", "yes true"),
			actions: []action{{op: "reset", arg: instr, isReply: true, err: `2 "Response:"`}, {op: "reset", arg: instr, want: "ok"}},
			calls: []call{
				{"t0/user/0", msgs(llmSys)},
				{"t0/user/0/verify1", check("VERIFY", lines(), "None")},
				{"t0/user/0/reflect1", check("REFLECT", lines(), "None")},
				{"t0/user/1", msgs(llmSys)},
				{"t0/user/1/verify1", check("VERIFY", lines(), "None")},
				{"t0/user/1/reflect1", check("REFLECT", lines(), "None")},
				{"t0/user/1/attempt2", msgs(llmSys, usr("fine"))},
				{"t0/user/1/verify2", check("VERIFY", lines("Customer: fine"), "ok")},
			},
		},
		{
			name: "no choices", strategy: LLM, trial: 0,
			script:  []reply{{noChoice: true}},
			actions: []action{{op: "reset", arg: instr, isReply: true, err: "no choices"}},
			calls:   []call{{"t0/user/0", msgs(llmSys)}},
		},
		{
			name: "step before reset", strategy: LLM, trial: 0,
			actions: []action{{op: "step", arg: "hi", err: "Step before Reset"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{replies: slices.Clone(tc.script)}
			sim, err := New(tc.strategy, tc.trial, tasks.User{Sampler: s, Prompts: testLibrary(t), Strategy: tc.strategy, Setup: tc.setup})
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range tc.actions {
				var got string
				var err error
				switch a.op {
				case "setup":
					err = sim.Setup(context.Background())
				case "reset":
					got, err = sim.Reset(context.Background(), a.arg)
				case "step":
					got, err = sim.Step(context.Background(), a.arg)
				}
				switch {
				case a.err == "" && err != nil:
					t.Errorf("action %d (%s %q): %v", i, a.op, a.arg, err)
				case a.err != "" && (err == nil || !strings.Contains(err.Error(), a.err)):
					t.Errorf("action %d (%s %q): error %v, want one with %q", i, a.op, a.arg, err, a.err)
				case err != nil && errors.Is(err, ErrReply) != a.isReply:
					t.Errorf("action %d (%s %q): error %v: errors.Is(ErrReply) = %v, want %v", i, a.op, a.arg, err, !a.isReply, a.isReply)
				case got != a.want:
					t.Errorf("action %d (%s %q) = %q, want %q", i, a.op, a.arg, got, a.want)
				}
			}
			if len(s.replies) != 0 {
				t.Errorf("%d scripted replies left unasked", len(s.replies))
			}
			if sim.Calls() != len(s.reqs) {
				t.Errorf("Calls() = %d, %d requests made", sim.Calls(), len(s.reqs))
			}
			checkRequests(t, s.reqs, tc.calls)
		})
	}
}

func checkRequests(t *testing.T, reqs []llm.Request, want []call) {
	t.Helper()
	seen := map[string]bool{}
	for i, r := range reqs {
		if r.Temperature != nil || r.Purpose != Purpose || r.N != 0 || r.MaxTokens != 0 || len(r.Tools) != 0 || r.Seed != 0 {
			t.Errorf("request %d (%s): temperature %v, purpose %q, n %d, max_tokens %d, %d tools, seed %d; want none but purpose %q",
				i, r.Call, r.Temperature, r.Purpose, r.N, r.MaxTokens, len(r.Tools), r.Seed, Purpose)
		}
		if seen[r.Call] {
			t.Errorf("request %d: call identity %q used twice", i, r.Call)
		}
		seen[r.Call] = true
		if i >= len(want) {
			t.Errorf("request %d (%s) not expected: %q", i, r.Call, r.Messages)
			continue
		}
		if r.Call != want[i].id {
			t.Errorf("request %d: call %q, want %q", i, r.Call, want[i].id)
		}
		if !reflect.DeepEqual(r.Messages, want[i].msgs) {
			t.Errorf("request %d (%s):\n got %q\nwant %q", i, r.Call, r.Messages, want[i].msgs)
		}
	}
	if len(reqs) < len(want) {
		t.Errorf("%d requests, want %d", len(reqs), len(want))
	}
}

func TestSamplerErrors(t *testing.T) {
	boom := errors.New("endpoint down")
	for _, strategy := range Strategies() {
		s := &scripted{replies: []reply{{err: boom}}}
		sim, err := New(strategy, 0, tasks.User{Sampler: s, Prompts: testLibrary(t), Setup: true})
		if err != nil {
			t.Fatal(err)
		}
		err = sim.Setup(context.Background())
		if !errors.Is(err, boom) || errors.Is(err, ErrReply) {
			t.Errorf("%s: setup error %v: want the sampler's, not ErrReply", strategy, err)
		}
		s.replies = []reply{{err: context.Canceled}}
		if _, err := sim.Reset(context.Background(), "x"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrReply) {
			t.Errorf("%s: reset error %v", strategy, err)
		}
	}
}

// The verify and reflection strategies' checks fail mid-loop too.
func TestCheckErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		strategy string
		script   []reply
		calls    int
	}{
		{Verify, []reply{{content: "a"}, {err: boom}}, 2},
		{Verify, []reply{{content: "a"}, {content: "no"}, {content: "b"}, {err: boom}}, 4},
		{Reflection, []reply{{content: "a"}, {err: boom}}, 2},
		{Reflection, []reply{{content: "a"}, {content: "no"}, {err: boom}}, 3},
		{Reflection, []reply{{content: "a"}, {content: "no"}, {content: "Response: b"}, {err: boom}}, 4},
		{Reflection, []reply{{content: "a"}, {content: "no"}, {content: "Response: b"}, {content: "c"}, {err: boom}}, 5},
	} {
		s := &scripted{replies: tc.script}
		sim, err := New(tc.strategy, 0, tasks.User{Sampler: s, Prompts: testLibrary(t)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Reset(context.Background(), "x"); !errors.Is(err, boom) || sim.Calls() != tc.calls {
			t.Errorf("%s, %d replies: %v after %d calls, want %v after %d", tc.strategy, len(tc.script), err, sim.Calls(), boom, tc.calls)
		}
	}
}

func TestNew(t *testing.T) {
	lib := testLibrary(t)
	s := &scripted{}
	for _, tc := range []struct {
		strategy string
		u        tasks.User
		err      string
	}{
		{"", tasks.User{Sampler: s, Prompts: lib, Strategy: "react"}, ""},
		{"verify", tasks.User{Sampler: s, Prompts: lib}, ""},
		{"", tasks.User{Sampler: s, Prompts: lib}, "unknown strategy"},
		{"human", tasks.User{Sampler: s, Prompts: lib}, "unknown strategy"},
		{"llm", tasks.User{Sampler: s, Prompts: lib, Strategy: "react"}, "contradicts"},
		{"llm", tasks.User{Prompts: lib}, "needs a sampler"},
		{"llm", tasks.User{Sampler: s}, "needs a sampler"},
	} {
		_, err := New(tc.strategy, 0, tc.u)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("New(%q, %+v): %v, want %q", tc.strategy, tc.u.Strategy, err, tc.err)
		}
	}
}

// A template that fails to render is a configuration error, not
// ErrReply, and no call is made.
func TestBadTemplate(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Folder), 0o755)
	if err := os.WriteFile(filepath.Join(dir, Folder, "user_llm.txt"), []byte("{{.Missing}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := prompts.WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{replies: say("x")}
	sim, _ := New(LLM, 0, tasks.User{Sampler: s, Prompts: lib})
	if _, err := sim.Reset(context.Background(), "x"); err == nil || errors.Is(err, ErrReply) || len(s.reqs) != 0 {
		t.Errorf("reset with a broken template: %v, %d requests", err, len(s.reqs))
	}
}

// pyStrip strips what Python's str.isspace() calls space; the list is
// python3 -c "print([hex(i) for i in range(0x110000) if chr(i).isspace()])".
func TestPyIsSpace(t *testing.T) {
	py := []rune{0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
		0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000}
	for r := rune(0); r <= 0x10ffff; r++ {
		if pyIsSpace(r) != slices.Contains(py, r) {
			t.Errorf("pyIsSpace(%U) = %v", r, pyIsSpace(r))
		}
	}
	if got := pyStrip("\x1c\u3000 a b\n\x1f"); got != "a b" {
		t.Errorf("pyStrip = %q", got)
	}
}

// verify's test of "true" relies on no character but T, R, U, E lowering
// to t, r, u, e in Go, as in Python (python3: [c for c in map(chr,
// range(128, 0x110000)) if set(c.lower()) & set("true")] is empty).
func TestLowerTrue(t *testing.T) {
	for r := rune(128); r <= 0x10ffff; r++ {
		if l := strings.ToLower(string(r)); strings.ContainsAny(l, "true") {
			t.Errorf("%U lowers to %q", r, l)
		}
	}
}

func TestRoleLabel(t *testing.T) {
	for in, want := range map[string]string{"user": "Customer", "assistant": "Agent", "system": "System", "tOOL": "Tool", "": ""} {
		if got := roleLabel(in); got != want {
			t.Errorf("roleLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", 300)
	got := clip(long)
	if !strings.HasSuffix(got, "(600 bytes)") || len(got) > 230 || strings.Contains(got, `\x`) {
		t.Errorf("clip = %q", got)
	}
}

// The bundled templates keep the reference's structure and the markers
// the simulated model reads: the instruction block only with an
// instruction, no trailing newline, the labels the replies are parsed by.
func TestBundledTemplates(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	render := func(name string, data any) string {
		t.Helper()
		out, err := lib.Render(Folder+"/"+name, data)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, name := range []string{"user_llm", "user_react"} {
		bare := render(name, PromptData{})
		with := render(name, PromptData{Instruction: "You are ann_1. Cancel order #W1."})
		head, tail, ok := strings.Cut(with, "\n\nInstruction: You are ann_1. Cancel order #W1.\n")
		if !ok || head+tail != bare || strings.Contains(bare, "Instruction: ") {
			t.Errorf("%s: the instruction block is not \"\\n\\nInstruction: X\\n\" added to the bare prompt:\n%q\n%q", name, bare, with)
		}
		if strings.HasSuffix(bare, "\n") || !strings.Contains(bare, "'"+Stop+"'") {
			t.Errorf("%s: %q", name, bare)
		}
	}
	if react := render("user_react", PromptData{}); !strings.HasSuffix(react[:strings.LastIndex(react, "\n")], "\n\nUser Response:") ||
		!strings.Contains(react, "\n\nThought:\n") {
		t.Errorf("user_react does not end with the Thought/User Response format: %q", react)
	}
	d := CheckData{Transcript: "System: S\nCustomer: Hi", Response: "R"}
	if v := render("user_verify", d); !strings.HasSuffix(v, "\n\nClassification:") || !strings.Contains(v, "\nSystem: S\nCustomer: Hi\n") || !strings.Contains(v, "\nR\n") {
		t.Errorf("user_verify: %q", v)
	}
	r := render("user_reflect", d)
	if i := strings.LastIndex(r, "\n\nResponse:\n"); i < 0 || !strings.Contains(r[:i], "\n\nReflection:\n") || strings.Contains(r[i+1:], "\n\n") || !strings.Contains(r, "\nR\n") {
		t.Errorf("user_reflect does not end with the Reflection/Response format: %q", r)
	}
	if o := render("user_opening", struct{}{}); o == "" || strings.ContainsAny(o, "\n{}") {
		t.Errorf("user_opening: %q", o)
	}
}
