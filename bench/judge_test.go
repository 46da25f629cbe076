package bench

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// judgeStub scores every passage 9 and counts what it was asked.
type judgeStub struct {
	mu    sync.Mutex
	calls int
	other int
}

func (j *judgeStub) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls++
	if !strings.Contains(req.Messages[0].Content, "coherency score is S") {
		j.other++
	}
	var r llm.Response
	for i := range req.Samples() {
		r.Choices = append(r.Choices, llm.Choice{Index: i, Content: "Thus the coherency score is 9"})
	}
	r.Usage = llm.Usage{PromptTokens: 1000, CompletionTokens: 100, Requests: 1}
	return r, nil
}

// TestJudgeModelAndEndpoint: with --judge-model and --judge-base-url the
// writing comes from the simulator and every judge call goes to the judge
// endpoint, recorded with purpose judge and costed at the judge's price;
// a rerun takes them from the cache. By default the run's model judges.
func TestJudgeModelAndEndpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stub := &judgeStub{}
	srv := httptest.NewServer(llm.NewServer(stub, llm.ServerOptions{}))
	defer srv.Close()
	st := tempStore(t)
	eng := &Engine{Store: st}
	cfg, err := ApplyPreset(DefaultConfig(), "tot-creative/io")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Range, cfg.JudgeModel, cfg.JudgeBaseURL = "0:2", "judge-x", srv.URL+"/v1"
	cfg.Prices = llm.Prices{"judge-x": {Prompt: 1, Completion: 10}}
	sum, err := eng.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Metrics["coherency"] != 9 || stub.calls == 0 || stub.other != 0 {
		t.Fatalf("coherency %v, judge asked %d times (%d not judge prompts)", sum.Metrics["coherency"], stub.calls, stub.other)
	}
	judged, cost := 0, 0.0
	for item := range 2 {
		calls, err := st.Calls(ctx, sum.RunID, item)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			if c.Purpose == "judge" {
				judged++
				cost += c.Cost
			}
		}
	}
	if want := float64(stub.calls) * (1000*1 + 100*10) / 1e6; judged != stub.calls || math.Abs(cost-want) > 1e-9 {
		t.Errorf("%d judge calls recorded (the endpoint got %d), cost %v", judged, stub.calls, cost)
	}
	before := stub.calls
	if _, err := eng.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if stub.calls != before {
		t.Errorf("a rerun asked the judge %d more times; the cache should answer", stub.calls-before)
	}
	cfg.JudgeModel, cfg.JudgeBaseURL = "", ""
	sum, err = eng.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := sum.Metrics["coherency"]; c == 9 || c < 1 || c > 10 || stub.calls != before {
		t.Errorf("default judge: coherency %v, endpoint asked %d more times", c, stub.calls-before)
	}
}

// TestJudgeFlagsNeedAJudgedTask: judge flags on a task no judge scores are
// a configuration error (exit 2), not recorded and silently unused.
func TestJudgeFlagsNeedAJudgedTask(t *testing.T) {
	t.Parallel()
	for _, set := range []func(*Config){
		func(c *Config) { c.JudgeModel = "judge-x" },
		func(c *Config) { c.JudgeBaseURL = "http://127.0.0.1:1/v1" },
	} {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range = "crosswords", "io", "0:1"
		set(&cfg)
		_, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg)
		var ce ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "crosswords has no judge") {
			t.Errorf("run: %v, want a ConfigError naming the task", err)
		}
		if err := Check(cfg); !errors.As(err, &ce) {
			t.Errorf("check: %v, want a ConfigError", err)
		}
	}
}
