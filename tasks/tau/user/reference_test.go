package user

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// With REASONBENCH_TAU_SRC naming a checkout of sierra-research/tau-bench,
// the reference's own user.py (testdata/user_reference.py runs it with a
// stand-in litellm) and the simulator with the checkout's imported prompts
// play the same scripts: every request's messages, the replies handed to
// the agent and the action that fails must be the same, and the reference
// passes no sampling argument (no temperature).
func TestSimulatorAgainstTheReference(t *testing.T) {
	src := os.Getenv("REASONBENCH_TAU_SRC")
	if src == "" {
		t.Skip("REASONBENCH_TAU_SRC does not name a checkout of sierra-research/tau-bench")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed to run the reference")
	}
	texts, err := prompts.ImportPack("tau-bench", src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := prompts.WriteFolder(dir, texts); err != nil {
		t.Fatal(err)
	}
	lib, err := prompts.WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	const instr = "You are mia_li_3668. You want to fly from New York to Seattle on May 20 (one way). {{.Instruction}} {x}"
	reset := [2]string{"reset", instr}
	step := func(s string) [2]string { return [2]string{"step", s} }
	for _, tc := range []struct {
		name     string
		strategy string
		script   []string
		actions  [][2]string
	}{
		{"llm", LLM, []string{"setup", "Hi, I'd like to book a flight.", "mia_li_3668", "Thanks! ###STOP###"},
			[][2]string{reset, step("Your user id?"), step("Booked.")}},
		{"llm empty", LLM, []string{"", ""}, [][2]string{reset}},
		{"llm empty step", LLM, []string{"a", "b", ""}, [][2]string{reset, step("x")}},
		{"react", ReAct, []string{"Thought: a\nUser Response: b", "User Response: c",
			"Thought:\nI greet.\n\nUser Response:\nHi, I want to book a flight. ", "User Response:\n\x1c mia_li_3668\u3000\n",
			"Thought: done\nUser Response: ###STOP###"},
			[][2]string{reset, step("Your id?"), step("Booked.")}},
		{"react twice", ReAct, []string{"User Response: a", "Thought: b", "Thought: x\nThought: y"}, [][2]string{reset}},
		{"react no labels", ReAct, []string{"User Response: a", "Thought: b", "hello", "just words"}, [][2]string{reset, step("?")}},
		{"react setup", ReAct, []string{"User Response: a", "no labels"}, [][2]string{reset}},
		{"react empty", ReAct, []string{"User Response: a", "Thought: b", ""}, [][2]string{reset}},
		{"verify", Verify, []string{"", "TRUE", "r1", "False.", "r2", "It is True.", "s1", "false", "s2", "no", "s3", "0", "u1", "untrue"},
			[][2]string{reset, step("Id?"), step("Well?")}},
		{"verify check empty", Verify, []string{"a", "true", "r1", ""}, [][2]string{reset}},
		{"verify none verified, empty", Verify, []string{"a", "true", "x", "no", "y", "no", "", "no"}, [][2]string{reset}},
		{"reflection", Reflection, []string{"hello", "true", "r1", "true",
			"s1", "false", "Reflection: too curt.\nResponse:  Could you book it, please? \n", "s2", "true",
			"t1", "nope", "Response: x", "t2", "no",
			"v1", "no", "Reflection: none"},
			[][2]string{reset, step("What can I do?"), step("Which flight?"), step("Ok?")}},
		{"reflection empty", Reflection, []string{"", "no", "Response: fine", "", "yes", "", "no", "Response: again", "ok", "true"},
			[][2]string{reset}},
		{"reflection twice", Reflection, []string{"a", "true", "b", "no", "Response: x\nResponse: y"}, [][2]string{reset}},
		{"reflection check empty", Reflection, []string{"a", "true", "b", "no", "Response: x", "c", ""}, [][2]string{reset}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := runReference(t, python, src, tc.strategy, tc.script, tc.actions)
			if len(ref.Kwargs) != 0 {
				t.Errorf("the reference passed %q", ref.Kwargs)
			}
			s := &scripted{replies: say(tc.script...)}
			sim, err := New(tc.strategy, 0, tasks.User{Sampler: s, Prompts: lib, Setup: true})
			if err != nil {
				t.Fatal(err)
			}
			errorAt := -1
			var returns []string
			for i := 0; i <= len(tc.actions); i++ {
				var got string
				switch {
				case i == 0:
					err = sim.Setup(context.Background())
				case tc.actions[i-1][0] == "reset":
					got, err = sim.Reset(context.Background(), tc.actions[i-1][1])
				default:
					got, err = sim.Step(context.Background(), tc.actions[i-1][1])
				}
				if err != nil {
					if !errors.Is(err, ErrReply) {
						t.Errorf("action %d: %v is not ErrReply", i, err)
					}
					errorAt = i
					break
				}
				returns = append(returns, got)
			}
			if errorAt != ref.ErrorAt {
				t.Errorf("failed at action %d (%v), the reference at %d (%s)", errorAt, err, ref.ErrorAt, ref.Error)
			}
			if !slices.Equal(returns, ref.Returns) {
				t.Errorf("returned %q, the reference %q", returns, ref.Returns)
			}
			if len(s.reqs) != len(ref.Requests) {
				t.Errorf("%d requests, the reference %d", len(s.reqs), len(ref.Requests))
			}
			for i := range min(len(s.reqs), len(ref.Requests)) {
				if got := s.reqs[i].Messages; !reflect.DeepEqual(got, ref.Requests[i]) {
					t.Errorf("request %d (%s):\n got %q\nwant %q", i, s.reqs[i].Call, got, ref.Requests[i])
				}
			}
		})
	}
}

type referenceRun struct {
	Requests [][]llm.Message `json:"requests"`
	Kwargs   []string        `json:"kwargs"`
	Returns  []string        `json:"returns"`
	ErrorAt  int             `json:"error_at"`
	Error    string          `json:"error"`
}

func runReference(t *testing.T, python, src, strategy string, script []string, actions [][2]string) referenceRun {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"strategy": strategy, "script": script, "actions": actions})
	cmd := exec.Command(python, filepath.Join("testdata", "user_reference.py"), src)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the reference: %v\n%s", err, stderr.String())
	}
	var run referenceRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("the reference's output: %v: %s", err, out)
	}
	if run.Returns == nil {
		run.Returns = []string{}
	}
	return run
}
