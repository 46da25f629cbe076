package strategies

import (
	"context"
	"math"
	"testing"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// fakeCoding is a programming task whose "program" is correct when it
// says ok; it records which sample index scored which output.
type fakeCoding struct {
	tasks.Task
	scored []int
	plain  int // Score calls
}

func (f *fakeCoding) Problem(inst tasks.Instance) tasks.CodeProblem {
	return tasks.CodeProblem{ID: inst.Key, Prompt: inst.Input, EntryPoint: "f", Language: "python"}
}
func (f *fakeCoding) TemplateFolders() []string { return []string{"game24"} }
func (f *fakeCoding) Score(inst tasks.Instance, out string) tasks.Score {
	f.plain++
	return tasks.Score{Correct: out == "ok", Answer: out}
}
func (f *fakeCoding) ScoreSample(inst tasks.Instance, out string, i int) tasks.Score {
	f.scored = append(f.scored, i)
	return tasks.Score{Correct: out == "ok", Answer: out}
}

func TestSamplingPassAtK(t *testing.T) {
	t.Parallel()
	s := &scripted{outputs: []string{"bad", "ok", "bad", "bad", "ok"}}
	env := testEnv(t, s)
	task := &fakeCoding{Task: env.Task}
	env.Task = task
	spec, err := Lookup("io")
	if err != nil {
		t.Fatal(err)
	}
	v, err := param.Resolve(spec.Params, map[string]any{"k": 5})
	if err != nil {
		t.Fatal(err)
	}
	strat, _ := spec.New(v)
	res, err := strat.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	if task.plain != 0 || len(task.scored) != 5 {
		t.Fatalf("scored per sample %v, plain Score calls %d: want each sample once by its index", task.scored, task.plain)
	}
	for i, k := range task.scored {
		if k != i {
			t.Fatalf("sample %d scored as %d", i, k)
		}
	}
	want := map[string]float64{"pass@1": 0.4, "pass@5": 1, "best_of_k": 1}
	for k, v := range want {
		if math.Abs(res.Metrics[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v (metrics %v)", k, res.Metrics[k], v, res.Metrics)
		}
	}
	if res.Score.Correct || res.Output != "bad" {
		t.Errorf("first sample's verdict: %+v", res.Score)
	}
	if got := passMetrics(10, 3); math.Abs(got["pass@1"]-0.3) > 1e-12 || got["pass@10"] != 1 {
		t.Errorf("passMetrics(10, 3) = %v", got)
	}
	if got := passMetrics(1, 0); len(got) != 1 || got["pass@1"] != 0 {
		t.Errorf("passMetrics(1, 0) = %v", got)
	}
	// A task that is not a programming task gets no pass@k.
	env.Task = task.Task
	res, err = strat.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Metrics["pass@1"]; ok {
		t.Errorf("game24 got pass@1: %v", res.Metrics)
	}
}
