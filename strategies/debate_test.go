package strategies

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// debater answers by call identity from a table, recording every request;
// safe for the concurrent agents of a round.
type debater struct {
	mu      sync.Mutex
	answers map[string]string
	reqs    map[string]llm.Request
}

func (d *debater) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, dup := d.reqs[req.Call]; dup {
		return llm.Response{}, fmt.Errorf("call %s asked twice", req.Call)
	}
	d.reqs[req.Call] = req
	return llm.Response{Choices: []llm.Choice{{Content: d.answers[req.Call]}}}, nil
}

func TestDebateEachAgentSeesTheOthersPreviousAnswers(t *testing.T) {
	t.Parallel()
	const right = "Answer: 4 * 5 + 10 - 6 = 24"
	d := &debater{reqs: map[string]llm.Request{}, answers: map[string]string{
		"r0/a0": "Answer: (10 - 6) * (5 + 4) = 24", "r0/a1": right, "r0/a2": "garbage, no answer",
		"r1/a0": right, "r1/a1": right, "r1/a2": "",
		"r2/a0": "Answer: 1 + 1 = 24", "r2/a1": right, "r2/a2": right,
	}}
	s, err := newDebate(param.Values{"agents": 3, "rounds": 3, "temperature": 0.7, "max_tokens": 0, "vote_key": "", "context": ""})
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t, d)
	res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.reqs) != 9 {
		t.Fatalf("%d calls, want 3 agents × 3 rounds", len(d.reqs))
	}
	for r := range 3 {
		for a := range 3 {
			req := d.reqs[reading.DebateCall(r, a)]
			if req.N > 1 || req.Purpose != "debate" {
				t.Errorf("%s: n=%d purpose %q, want one sample, purpose debate", req.Call, req.N, req.Purpose)
			}
			if len(req.Messages) != 1+2*r {
				t.Fatalf("%s: %d messages, want %d", req.Call, len(req.Messages), 1+2*r)
			}
			if r == 0 {
				continue
			}
			// Its own answers in its conversation, the others' latest in
			// the last prompt, in agent order, its own not among them.
			if got, want := req.Messages[2*r-1].Content, d.answers[reading.DebateCall(r-1, a)]; got != want {
				t.Errorf("%s: assistant turn %q, want its own previous answer %q", req.Call, got, want)
			}
			last := req.Messages[2*r].Content
			pos := -1
			for b := range 3 {
				other := "```\n" + d.answers[reading.DebateCall(r-1, b)] + "\n```"
				i := strings.Index(last, other)
				if b == a {
					continue
				}
				if i < 0 || i < pos {
					t.Errorf("%s: agent %d's answer missing or out of order in %q", req.Call, b, last)
				}
				pos = i
			}
			if strings.Count(last, "```") != 4 {
				t.Errorf("%s: want the two others' answers quoted, got %q", req.Call, last)
			}
		}
	}
	det := res.Detail.(reading.DebateDetail)
	if len(det.Rounds) != 3 || len(det.Rounds[0].Turns) != 3 {
		t.Fatalf("transcript %d rounds", len(det.Rounds))
	}
	// Round 0: one right, one wrong, one abstains: the first seen wins.
	if r0 := det.Rounds[0]; r0.Correct || r0.Vote.Winner != 0 || r0.Turns[2].Key != nil {
		t.Errorf("round 0 = %+v, want agent 0's wrong answer, agent 2 abstaining", r0)
	}
	if !det.Rounds[1].Correct || !det.Rounds[2].Correct || !res.Score.Correct || res.Output != right {
		t.Errorf("result %q correct %v, rounds %+v", res.Output, res.Score.Correct, det.Rounds)
	}
	if res.Metrics["agent_accuracy"] != 2.0/3 || res.Metrics["first_round_majority"] != 0 {
		t.Errorf("metrics %v", res.Metrics)
	}
}

func TestDebateAloneChecksItsOwnAnswer(t *testing.T) {
	t.Parallel()
	d := &debater{reqs: map[string]llm.Request{}, answers: map[string]string{"r0/a0": "Answer: 2 * 12 = 24", "r1/a0": "no"}}
	s, _ := newDebate(param.Values{"agents": 1, "rounds": 2, "temperature": 0.7, "max_tokens": 0, "vote_key": "", "context": ""})
	res, err := s.Solve(context.Background(), testEnv(t, d), puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	req := d.reqs["r1/a0"]
	want, _ := testEnv(t, d).Prompts.Render("game24/debate_alone", DebateData{})
	if len(req.Messages) != 3 || req.Messages[2].Content != want {
		t.Errorf("lone agent's second prompt %+v, want the debate_alone template", req.Messages)
	}
	if res.Output != "" || res.Score.Correct {
		t.Errorf("an abstaining last round gave output %q", res.Output)
	}
}

func TestDebateTemplates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agents, rounds int
		want           []string
	}{{3, 2, []string{"cot", "debate"}}, {1, 3, []string{"cot", "debate_alone"}}, {4, 1, []string{"cot"}}} {
		if got := debateTemplates(param.Values{"agents": c.agents, "rounds": c.rounds}); !slices.Equal(got, c.want) {
			t.Errorf("agents=%d rounds=%d: %v, want %v", c.agents, c.rounds, got, c.want)
		}
	}
}

func TestDebateModelsParam(t *testing.T) {
	t.Parallel()
	base := param.Values{"agents": 3, "rounds": 2, "temperature": 0.7, "max_tokens": 0, "vote_key": "", "context": ""}
	for _, c := range []struct {
		models string
		want   []string
		err    string
	}{
		{"", nil, ""},
		{"a,b@x,a", []string{"a", "b@x"}, ""},
		{" a , a , a ", []string{"a"}, ""},
		{"a,b", nil, "names 2 models for 3 agents"},
		{"a,,b", nil, "want MODEL or MODEL@ENDPOINT"},
		{"a,@x,b", nil, "want MODEL or MODEL@ENDPOINT"},
	} {
		v := maps.Clone(base)
		v["models"] = c.models
		s, err := newDebate(v)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("models=%q: %v, want %q", c.models, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("models=%q: %v", c.models, err)
		}
		if got := s.(*debate).AgentModels(); !slices.Equal(got, c.want) {
			t.Errorf("models=%q: AgentModels %q, want %q", c.models, got, c.want)
		}
	}
}

func TestDebateJudgeReadsTheTranscript(t *testing.T) {
	t.Parallel()
	const right = "Answer: 4 * 5 + 10 - 6 = 24"
	d := &debater{reqs: map[string]llm.Request{}, answers: map[string]string{
		"r0/a0": "Answer: A0", "r0/a1": "Answer: A1", "r1/a0": "Answer: B0", "r1/a1": "Answer: B1", "judge": right}}
	v := param.Values{"agents": 2, "rounds": 2, "temperature": 0.7, "max_tokens": 0, "vote_key": "", "context": "", "final": DebateJudge}
	s, err := newDebate(v)
	if err != nil {
		t.Fatal(err)
	}
	if !s.(JudgeUser).UsesJudge() || !slices.Contains(debateTemplates(v), "debate_judge") {
		t.Fatal("final=judge does not declare the judge")
	}
	env := testEnv(t, d)
	if _, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10")); err == nil {
		t.Error("final=judge without a judge sampler solved")
	}
	d.reqs = map[string]llm.Request{}
	env.Judge = env.Sampler // the judge role, on the same scripted model
	res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	j := d.reqs["judge"]
	if j.Purpose != "judge" || len(j.Messages) != 1 {
		t.Fatalf("judge request %+v", j)
	}
	for _, a := range []string{"Round 1:", "Answer: A0", "Answer: A1", "Round 2:", "Answer: B0", "Answer: B1", "4 5 6 10"} {
		if !strings.Contains(j.Messages[0].Content, a) {
			t.Errorf("the judge's prompt lacks %q", a)
		}
	}
	det := res.Detail.(reading.DebateDetail)
	if res.Output != right || !res.Score.Correct || det.Judged == nil || *det.Judged != right || res.Metrics["last_round_majority"] != 0 {
		t.Errorf("output %q correct %v judged %v metrics %v", res.Output, res.Score.Correct, det.Judged, res.Metrics)
	}
}
