package user

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/tasks"
)

// parseReAct on any reply: "###STOP###" when the reply has it; else the
// stripped text after its only label; else an ErrReply.
func FuzzParseReAct(f *testing.F) {
	for _, s := range []string{"Thought: a\nUser Response: b", "User Response: x", "Thought:Thought:", "###STOP###", "", "none", "\x1cThought:\x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		got, err := parseReAct(text{s: reply, none: reply == ""})
		if err != nil {
			if !errors.Is(err, ErrReply) {
				t.Fatalf("%q: %v is not ErrReply", reply, err)
			}
			if reply != "" && !strings.Contains(reply, Stop) && (strings.Count(reply, "Thought:") == 1 ||
				!strings.Contains(reply, "Thought:") && strings.Count(reply, "User Response:") == 1) {
				t.Fatalf("%q refused: %v", reply, err)
			}
			return
		}
		switch {
		case strings.Contains(reply, Stop):
			if got.s != Stop {
				t.Fatalf("%q = %q, want %q", reply, got.s, Stop)
			}
		case strings.Contains(reply, "Thought:"):
			if _, after, _ := strings.Cut(reply, "Thought:"); got.s != pyStrip(after) || strings.Count(reply, "Thought:") != 1 {
				t.Fatalf("%q = %q", reply, got.s)
			}
		default:
			if _, after, _ := strings.Cut(reply, "User Response:"); got.s != pyStrip(after) || strings.Count(reply, "User Response:") != 1 {
				t.Fatalf("%q = %q", reply, got.s)
			}
		}
		if got.s != pyStrip(got.s) || got.none {
			t.Fatalf("%q = %+v: not stripped", reply, got)
		}
	})
}

// Any replies, any strategy: no panic, only ErrReply failures, and each
// turn asks what its strategy may (llm and react 1 call; verify 2, 4 or 6;
// reflection 2 or 5), each request with a call identity of its own.
func FuzzSimulator(f *testing.F) {
	f.Add(uint8(0), "a\x00b\x00###STOP###")
	f.Add(uint8(1), "Thought: a\x00User Response: b\x00x")
	f.Add(uint8(2), "r\x00no\x00s\x00TRUE\x00\x00")
	f.Add(uint8(3), "r\x00no\x00Response: x\x00s\x00no\x00t\x00true")
	lib := testLibrary(f)
	f.Fuzz(func(t *testing.T, which uint8, script string) {
		strategy := Strategies()[int(which)%len(Strategies())]
		replies := strings.Split(script, "\x00")
		n := 0
		s := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			r := replies[n%len(replies)]
			n++
			return llm.Response{Choices: []llm.Choice{{Content: r}}}, nil
		})
		sim, err := New(strategy, 0, tasks.User{Sampler: s, Prompts: lib, Setup: which&4 != 0})
		if err != nil {
			t.Fatal(err)
		}
		allowed := map[string][]int{LLM: {1}, ReAct: {1}, Verify: {2, 4, 6}, Reflection: {2, 5}}[strategy]
		turn := func(name string, do func() (string, error)) bool {
			before := sim.Calls()
			got, err := do()
			calls := sim.Calls() - before
			if err != nil {
				if !errors.Is(err, ErrReply) {
					t.Fatalf("%s %s: %v is not ErrReply", strategy, name, err)
				}
				return false
			}
			if !slices.Contains(allowed, calls) && !(name == "setup" && strategy == ReAct && calls == 2) && !(name == "setup" && calls == 0 && which&4 == 0) {
				t.Fatalf("%s %s: %d calls", strategy, name, calls)
			}
			if name != "setup" && got == "" && strategy != ReAct {
				t.Fatalf("%s %s: an empty reply handed to the agent", strategy, name)
			}
			return true
		}
		if !turn("setup", func() (string, error) { return "", sim.Setup(context.Background()) }) {
			return
		}
		if !turn("reset", func() (string, error) { return sim.Reset(context.Background(), "instr") }) {
			return
		}
		for range 3 {
			if !turn("step", func() (string, error) { return sim.Step(context.Background(), "agent says") }) {
				return
			}
		}
	})
}
