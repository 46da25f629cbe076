package llm

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestPricesLookup(t *testing.T) {
	ps := DefaultPrices().With(Prices{"sim": {Prompt: 1, Completion: 2}, "gpt-4o": {Prompt: 9, Completion: 9}})
	cases := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4", Price{30, 60}, true},
		{"gpt-4o", Price{9, 9}, true},                   // overridden
		{"gpt-4o-2024-08-06", Price{9, 9}, true},        // dated snapshot → alias
		{"gpt-4o-2024-05-13", Price{5, 15}, true},       // a snapshot priced differently is listed
		{"o3-mini-2025-01-31", Price{1.10, 4.40}, true}, // alias
		{"sim", Price{1, 2}, true},
		{"Qwen/Qwen3-8B", Price{}, false},
	}
	for _, tc := range cases {
		got, ok := ps.Lookup(tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := PriceOf("sim"); ok {
		t.Error("the built-in table prices the simulator; it must be free unless a price file names it")
	}
}

func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, path := range []string{
		write("p.json", `{"sim": {"prompt": 30, "completion": 60}}`),
		write("p.yaml", "sim:\n  prompt: 30\n  completion: 60\n"),
	} {
		ps, err := LoadPrices(path)
		if err != nil {
			t.Fatal(err)
		}
		if ps["sim"] != (Price{30, 60}) {
			t.Errorf("%s: %v", path, ps)
		}
	}
	for _, bad := range []string{write("bad.json", `{"sim": 3}`), write("neg.yaml", "sim: {prompt: -1}\n"), filepath.Join(dir, "missing.json")} {
		if _, err := LoadPrices(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestCostAt(t *testing.T) {
	s := CostAt(Price{Prompt: 30, Completion: 60})(SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		return Response{Usage: Usage{PromptTokens: 1000, CompletionTokens: 500}}, nil
	}))
	resp, _ := s.Sample(context.Background(), Request{})
	if want := 0.03 + 0.03; math.Abs(resp.Usage.Cost-want) > 1e-12 {
		t.Errorf("cost %v, want %v (the paper's $0.03/1k prompt, $0.06/1k completion)", resp.Usage.Cost, want)
	}
}

func TestBudget(t *testing.T) {
	calls := 0
	backend := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		calls++
		return Response{Usage: Usage{Cost: 0.4}}, nil
	})
	b := NewBudget(1, 0.1)
	s := Chain(backend, b.Gate(), b.Meter())
	var err error
	n := 0
	for ; n < 10 && err == nil; n++ {
		_, err = s.Sample(context.Background(), Request{})
	}
	// 0.1 spent before; three calls reach 1.3 >= 1; the fourth is refused.
	if calls != 3 || !errors.Is(err, ErrMaxCost) {
		t.Errorf("%d calls made, err %v; want 3 and ErrMaxCost", calls, err)
	}
	var me MaxCostError
	if !errors.As(err, &me) || me.Max != 1 || math.Abs(me.Spent-1.3) > 1e-9 {
		t.Errorf("error %#v", err)
	}
	unlimited := NewBudget(0, 100)
	if unlimited.Exhausted() {
		t.Error("a zero ceiling is no ceiling")
	}
}

// Calls in flight when the ceiling is reached finish and are counted; the
// next one is refused.
func TestBudgetInFlightFinish(t *testing.T) {
	b := NewBudget(1, 0)
	started := make(chan struct{})
	release := make(chan struct{})
	s := b.Meter()(SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		started <- struct{}{}
		<-release
		return Response{Usage: Usage{Cost: 1}}, nil
	}))
	errs := make(chan error, 3)
	for range 3 {
		go func() { _, err := s.Sample(context.Background(), Request{}); errs <- err }()
	}
	for range 3 {
		<-started
	}
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("a call in flight failed: %v", err)
		}
	}
	if b.Spent() != 3 {
		t.Errorf("spent %v, want 3 (all three in-flight calls counted)", b.Spent())
	}
	if _, err := s.Sample(context.Background(), Request{}); !errors.Is(err, ErrMaxCost) {
		t.Errorf("a new call after the ceiling: %v", err)
	}
}

// Spending exactly the ceiling reaches it: the next call is refused.
func TestBudgetRefusesAtExactlyTheCeiling(t *testing.T) {
	calls := 0
	backend := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		calls++
		return Response{Usage: Usage{Cost: 0.25}}, nil
	})
	b := NewBudget(1, 0.5) // 0.5 + 0.25 + 0.25 = 1 exactly, in binary too
	s := Chain(backend, b.Gate(), b.Meter())
	for i := 0; i < 2; i++ {
		if _, err := s.Sample(context.Background(), Request{}); err != nil {
			t.Fatalf("call %d refused below the ceiling: %v", i, err)
		}
	}
	if b.Spent() != 1 || !b.Exhausted() {
		t.Fatalf("spent %v, exhausted %v: want exactly 1 and exhausted", b.Spent(), b.Exhausted())
	}
	if _, err := s.Sample(context.Background(), Request{}); !errors.Is(err, ErrMaxCost) || calls != 2 {
		t.Fatalf("a call at exactly the ceiling: err %v, %d calls made; want ErrMaxCost and 2", err, calls)
	}
}
