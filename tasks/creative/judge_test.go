package creative

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// judgeModel answers each judge request with the scores it is given, one
// a choice, and logs the requests.
type judgeModel struct {
	mu     sync.Mutex
	scores []string
	reqs   []llm.Request
	fail   bool
}

func (m *judgeModel) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if m.fail {
		return llm.Response{}, errors.New("judge down")
	}
	var out llm.Response
	for i := range req.Samples() {
		out.Choices = append(out.Choices, llm.Choice{Content: "Analysis.\nThus the coherency score is " + m.scores[i%len(m.scores)]})
	}
	return out, nil
}

func TestJudgeScoresTheMeanOfFiveSamples(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	m := &judgeModel{scores: []string{"10", "6", "7", "8", "9"}}
	judged, failed := NewTask().WithJudge(context.Background(), tasks.Judge{Sampler: m, Prompts: lib})
	inst := tasks.Instance{Input: "One.\nTwo.\nThree.\nFour."}
	for range 2 { // the same passage twice: judged once
		sc := judged.Score(inst, "Passage:\nA. One.\n\nB. Two.\n\nC. Three.\n\nD. Four.")
		if sc.Metrics["coherency"] != 8 {
			t.Fatalf("coherency %v, want the mean of 10 6 7 8 9 = 8", sc.Metrics["coherency"])
		}
	}
	if err := failed(); err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 1 {
		t.Fatalf("%d judge requests for one passage, want 1", len(m.reqs))
	}
	r := m.reqs[0]
	if r.N != JudgeSamples || JudgeSamples != 5 || r.Purpose != "judge" || !strings.HasPrefix(r.Call, "judge/") ||
		r.Temperature == nil || *r.Temperature != 0.7 || !strings.Contains(r.Messages[0].Content, "A. One.") {
		t.Fatalf("judge request %+v: want 5 samples at T=0.7, purpose judge, a judge/ identity and the passage", r)
	}
	// Another passage is another draw, under another identity.
	judged.Score(inst, "Passage:\nsomething else")
	if len(m.reqs) != 2 || m.reqs[1].Call == r.Call {
		t.Fatalf("a second passage: %d requests, identities %q and %q", len(m.reqs), r.Call, m.reqs[len(m.reqs)-1].Call)
	}
}

func TestJudgeFailureFailsTheItem(t *testing.T) {
	lib, _ := prompts.Bundled()
	judged, failed := NewTask().WithJudge(context.Background(), tasks.Judge{Sampler: &judgeModel{fail: true}, Prompts: lib})
	sc := judged.Score(tasks.Instance{Input: "a"}, "Passage:\nb")
	if _, ok := sc.Metrics["coherency"]; ok {
		t.Fatal("a failed judge call gave a coherency score")
	}
	if err := failed(); err == nil || !strings.Contains(err.Error(), "judge down") {
		t.Fatalf("failed() = %v, want the judge's error", err)
	}
	// Unbound, the task scores the constraint only and asks no one.
	if sc := NewTask().Score(tasks.Instance{Input: "a"}, "Passage:\nb"); sc.Metrics["coherency"] != 0 || len(sc.Metrics) != 1 {
		t.Fatalf("unbound score %+v", sc)
	}
}
