package strategies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

func refineRun(t *testing.T, l *learner, set map[string]any) Result {
	t.Helper()
	s := newStrategy(t, "selfrefine", set)
	log := &trialLog{}
	env := testEnv(t, l)
	env.Trace = log
	res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range log.steps {
		if !strings.HasPrefix(st, fmt.Sprintf("0 %d ", i)) {
			t.Errorf("trace step %d is %q", i, st)
		}
	}
	return res
}

func TestSelfRefineStopsOnThePhrase(t *testing.T) {
	t.Parallel()
	l := &learner{actor: []string{attempt(1), rightAnswer},
		feedback: []string{"The step 4 + 5 is wrong.\nScore: 2/10", "Each step checks out. No change needed.\nScore: 10/10"}}
	res := refineRun(t, l, nil)
	if len(l.prompts("generate")) != 1 || len(l.prompts("refine")) != 1 || len(l.prompts("feedback")) != 2 {
		t.Errorf("calls: %v", l.n)
	}
	if res.Accuracy != 1 || res.Output != rightAnswer || res.Metrics["iterations"] != 2 || res.Metrics["stopped_early"] != 1 {
		t.Errorf("result %v %v", res.Accuracy, res.Metrics)
	}
	if got := perTrial(res, "after_iteration_", 4); !slices.Equal(got, []float64{0, 1, 1, 1}) {
		t.Errorf("after_iteration = %v", got)
	}
	if got := perTrial(res, "ran_iteration_", 4); !slices.Equal(got, []float64{1, 1, 0, 0}) {
		t.Errorf("ran_iteration = %v", got)
	}
	fb := l.prompts("feedback")
	if !strings.Contains(fb[0], "attempt 1\n") || !strings.Contains(fb[0], "Proposed answer: (10 - 6) * (5 + 4)\n") ||
		!strings.Contains(fb[1], rightAnswer) {
		t.Errorf("feedback prompts:\n%s\n---\n%s", fb[0], fb[1])
	}
	d := res.Detail.(reading.SelfRefineDetail)
	if d.StoppedBy != "feedback" || len(d.Iterations) != 2 || !d.Iterations[1].Stop || *d.Iterations[0].Score != 2 {
		t.Errorf("detail %+v", d)
	}
}

func TestSelfRefineCarriesTheHistory(t *testing.T) {
	t.Parallel()
	l := &learner{actor: []string{attempt(1), attempt(2), attempt(3), attempt(4)},
		feedback: []string{"feedback on 1", "feedback on 2", "feedback on 3", "feedback on 4"}}
	res := refineRun(t, l, nil)
	rp := l.prompts("refine")
	// Four answers at most, and no feedback on the last.
	if len(rp) != 3 || len(l.prompts("feedback")) != 3 || res.Metrics["iterations"] != 4 || res.Metrics["stopped_early"] != 0 {
		t.Fatalf("%d refinements, %d feedbacks, metrics %v", len(rp), len(l.prompts("feedback")), res.Metrics)
	}
	for i, p := range rp {
		for k := 1; k <= 3; k++ {
			shown := strings.Contains(p, fmt.Sprintf("Attempt %d:\nSteps:\nattempt %d\n", k, k)) &&
				strings.Contains(p, fmt.Sprintf("Feedback on attempt %d:\nfeedback on %d\n", k, k))
			if shown != (k <= i+1) {
				t.Errorf("refine prompt %d shows attempt %d: %v\n%s", i+1, k, shown, p)
			}
		}
		if !strings.HasSuffix(p, "Input: 4 5 6 10\n") {
			t.Errorf("refine prompt %d does not end with the puzzle:\n%s", i+1, p)
		}
	}
	if res.Detail.(reading.SelfRefineDetail).StoppedBy != "limit" {
		t.Error("not stopped by the limit")
	}

	// The answer after iteration N is the current one, not any so far.
	l = &learner{actor: []string{rightAnswer, wrongAnswer}, feedback: []string{"Hmm."}}
	res = refineRun(t, l, map[string]any{"iterations": 3})
	if got := perTrial(res, "after_iteration_", 3); !slices.Equal(got, []float64{1, 0, 0}) || res.Metrics["any_correct"] != 1 || res.Accuracy != 0 {
		t.Errorf("after_iteration = %v, metrics %v", got, res.Metrics)
	}

	// A reply without an answer is shown to the feedback as (none).
	l = &learner{actor: []string{"I cannot solve this."}, feedback: []string{"Give an answer."}}
	refineRun(t, l, map[string]any{"iterations": 2})
	if fb := l.prompts("feedback"); len(fb) != 1 || !strings.Contains(fb[0], "Proposed answer: (none)\n") {
		t.Errorf("feedback prompts on a reply without an answer: %q", fb)
	}

	// One iteration: just the answer.
	l = &learner{actor: []string{rightAnswer}}
	res = refineRun(t, l, map[string]any{"iterations": 1})
	if len(l.reqs) != 1 || res.Accuracy != 1 {
		t.Errorf("iterations=1: %d calls", len(l.reqs))
	}
}

func TestSelfRefineStopsOnTheScore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		set   map[string]any
		fb    string
		calls int // feedback calls
	}{
		{map[string]any{"stop": StopScore}, "Fine.\nScore: 9/10", 1},
		{map[string]any{"stop": StopScore, "score_threshold": 9.5}, "Fine.\nScore: 9/10", 3},
		{map[string]any{"stop": StopScore}, "No change needed, I think.", 3},                             // no score: goes on
		{map[string]any{"stop": StopPhrase, "stop_phrase": "LGTM"}, "lgtm\nScore: 1/10", 1},              // phrase in any case
		{map[string]any{"stop": StopScore, "score_threshold": 8}, "Score: 5/10 at first, Score: 4/5", 1}, // the last score, rescaled
	} {
		l := &learner{actor: []string{wrongAnswer}, feedback: []string{c.fb}}
		refineRun(t, l, c.set)
		if got := len(l.prompts("feedback")); got != c.calls {
			t.Errorf("%v with %q: %d feedback calls, want %d", c.set, c.fb, got, c.calls)
		}
	}
	if _, err := newSelfRefine(param.Values{"iterations": 4, "stop": StopPhrase, "stop_phrase": " ", "score_threshold": 9.0,
		"temperature": 0.7, "max_tokens": 0, "context": "", "protocol": RefineAnswer, "feedback_temperature": 0.7, "timeout": 5.0}); err == nil {
		t.Error("empty stop phrase accepted")
	}
}

func TestFeedbackScore(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]float64{
		"Score: 7/10":              7,
		"score = 3":                3,
		"SCORE: 4/5":               8,
		"Score: 2/10\nScore: 9/10": 9,
		"Overall score: 8.5 / 10.": 8.5,
	} {
		if got, ok := FeedbackScore(in); !ok || got != want {
			t.Errorf("FeedbackScore(%q) = %v, %v", in, got, ok)
		}
	}
	if _, ok := FeedbackScore("No change needed."); ok {
		t.Error("a score without a number")
	}
}

// palRefine runs selfrefine protocol=pal on GSM8K item 0 (gold 18) with a
// scripted model and the sandbox.
func palRefine(t *testing.T, l *learner, set map[string]any) (Result, *bwrapExec) {
	t.Helper()
	ex := testExec(t)
	task, inst := gsmInstance(t, 0)
	env := testEnv(t, l)
	env.Task, env.Exec = task, ex
	if set == nil {
		set = map[string]any{}
	}
	set["protocol"] = RefinePAL
	set["stop_phrase"] = "it is correct"
	res, err := newStrategy(t, "selfrefine", set).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	return res, ex
}

func TestSelfRefinePALFollowsTheReference(t *testing.T) {
	const (
		wrong = "def solution():\n    return 16 - 3 - 4"       // 9
		crash = "def solution():\n    return 16 / 0"           // ZeroDivisionError
		right = "def solution():\n    return (16 - 3 - 4) * 2" // 18
	)
	l := &learner{
		actor: []string{fenced(wrong)},
		feedback: []string{
			"The eggs are not sold yet.\n" + fenced(crash),
			"Oops.\ndef solution():\n    return (16 - 3 - 4) * 2", // no fence: split at def solution
			"Every block follows the question: it is correct.\n" + fenced(right),
		},
	}
	res, ex := palRefine(t, l, map[string]any{"iterations": 5})
	d := res.Detail.(reading.SelfRefineDetail)
	if len(d.Iterations) != 4 || d.StoppedBy != "feedback" || res.Accuracy != 1 || res.Output != "Answer: 18" {
		t.Fatalf("iterations %d, stopped by %s, accuracy %v, output %q", len(d.Iterations), d.StoppedBy, res.Accuracy, res.Output)
	}
	// Three feedback calls, shown the program alone, never its run.
	fb := l.prompts("feedback")
	if len(fb) != 3 || len(l.prompts("generate")) != 1 || len(l.prompts("refine")) != 0 {
		t.Fatalf("calls %v", l.n)
	}
	if !strings.Contains(fb[0], wrong) || strings.Contains(fb[0], "returned") || !strings.Contains(fb[1], "16 / 0") ||
		strings.Contains(fb[1], "ZeroDivision") {
		t.Errorf("feedback prompts:\n%s\n---\n%s", fb[0], fb[1])
	}
	st := []string{d.Iterations[0].Status, d.Iterations[1].Status, d.Iterations[2].Status, d.Iterations[3].Status}
	if !slices.Equal(st, []string{"ok", "exit", "ok", "ok"}) || !strings.Contains(d.Iterations[1].Error, "ZeroDivisionError") {
		t.Errorf("statuses %v, %q", st, d.Iterations[1].Error)
	}
	if d.Iterations[0].Feedback != "The eggs are not sold yet.\nHere it is:" || !d.Iterations[2].Stop || d.Iterations[3].Program != right {
		t.Errorf("iterations %+v", d.Iterations)
	}
	if got := perTrial(res, "after_iteration_", 5); !slices.Equal(got, []float64{0, 0, 1, 1, 1}) {
		t.Errorf("after_iteration = %v", got)
	}
	if got := perTrial(res, "any_by_iteration_", 5); !slices.Equal(got, []float64{0, 0, 1, 1, 1}) {
		t.Errorf("any_by_iteration = %v", got)
	}
	if res.Metrics["exec_failed"] != 0.25 {
		t.Errorf("exec_failed %v", res.Metrics["exec_failed"])
	}
	slices.Sort(ex.sites)
	if !slices.Equal(ex.sites, []string{"i1/run", "i2/run", "i3/run", "i4/run"}) {
		t.Errorf("sites %v", ex.sites)
	}
	for _, r := range l.reqs {
		want := map[string]float64{"generate": 0.7, "feedback": 0.7}[r.Purpose]
		if r.Temperature == nil || *r.Temperature != want {
			t.Errorf("%s at temperature %v", r.Call, r.Temperature)
		}
	}
}

func TestSelfRefinePALLimitAndBadFeedback(t *testing.T) {
	const right = "def solution():\n    return 18"
	// The answer after attempt N is the current program's; any_by is the
	// reference's "some attempt so far".
	l := &learner{actor: []string{fenced(right)}, feedback: []string{"Wrong.\n" + fenced("def solution():\n    return 3")}}
	res, _ := palRefine(t, l, map[string]any{"iterations": 3, "temperature": 0.0, "feedback_temperature": 0.7})
	if got := perTrial(res, "after_iteration_", 3); !slices.Equal(got, []float64{1, 0, 0}) || res.Accuracy != 0 {
		t.Errorf("after_iteration = %v", got)
	}
	if got := perTrial(res, "any_by_iteration_", 3); !slices.Equal(got, []float64{1, 1, 1}) {
		t.Errorf("any_by_iteration = %v", got)
	}
	if len(l.prompts("feedback")) != 2 || res.Detail.(reading.SelfRefineDetail).StoppedBy != "limit" || *l.reqs[0].Temperature != 0 {
		t.Errorf("calls %v", l.n)
	}
	// A feedback without a program ends the loop; the program stands.
	l = &learner{actor: []string{fenced(right)}, feedback: []string{"I cannot tell."}}
	res, _ = palRefine(t, l, nil)
	if d := res.Detail.(reading.SelfRefineDetail); d.StoppedBy != "no_program" || len(d.Iterations) != 1 || res.Accuracy != 1 {
		t.Errorf("stopped by %s after %d, accuracy %v", d.StoppedBy, len(d.Iterations), res.Accuracy)
	}
}

func TestSplitFeedback(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, fb, prog string }{
		{"Bad.\n```python\ndef solution():\n    return 1\n```", "Bad.", "def solution():\n    return 1"},
		{"# wrong\ndef solution():\n    return 2\n", "# wrong", "def solution():\n    return 2"},
		{"```text\nx\n```\nthen\n```python\ndef solution(): return 3\n```", "```text\nx\n```\nthen", "def solution(): return 3"},
		{"no program here", "no program here", ""},
	} {
		fb, prog := SplitFeedback(c.in)
		if fb != c.fb || prog != c.prog {
			t.Errorf("SplitFeedback(%q) = %q, %q", c.in, fb, prog)
		}
	}
}
