package main

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/tokens"
)

// The estimate at a skill counts what a real run at that skill sends and
// receives: its calls, and the tokens of the recorded requests and
// responses under gpt-4's tokenizer; it never touches the --db file.
func TestEstimateMatchesARealRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Several calls in flight: identical value requests of ToT are sent
	// once however they are scheduled (llm.Cache), so the counts must agree.
	flags := []string{"--task", "game24", "--strategy", "tot", "--set", "b=2", "--range", "900:904", "--concurrency", "4"}
	untouched := filepath.Join(dir, "never.db")
	code, out, stderr := cli(t, append([]string{"estimate", "--model", "gpt-4", "--skills", "0.3,0.5", "--db", untouched, "--json"}, flags...)...)
	if code != 0 {
		t.Fatalf("estimate: %s", stderr)
	}
	if _, err := os.Stat(untouched); !os.IsNotExist(err) {
		t.Errorf("estimate touched the --db file (%v)", err)
	}
	var est bench.Estimate
	if err := json.Unmarshal([]byte(out), &est); err != nil {
		t.Fatal(err)
	}
	if !est.Simulated || est.Encoding != "cl100k_base" || !est.Exact || len(est.Totals) != 2 || est.Price == nil || *est.Price != (llm.Price{Prompt: 30, Completion: 60}) {
		t.Fatalf("estimate header: %+v", est)
	}
	at05 := est.Totals[1]

	db := filepath.Join(dir, "real.db")
	if code, _, stderr := cli(t, append([]string{"run", "--db", db, "--sim-skill", "0.5"}, flags...)...); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	st, err := openStore(t.Context(), db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	calls, err := st.Calls(t.Context(), 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	counter, _ := tokens.ForModel("gpt-4")
	var n, prompt, completion int
	for _, c := range calls {
		if c.CacheHit {
			continue
		}
		var req llm.Request
		var resp llm.Response
		if err := json.Unmarshal(c.Request, &req); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(c.Response, &resp); err != nil {
			t.Fatal(err)
		}
		n++
		prompt += counter.Prompt(req.Messages, req.Tools)
		completion += counter.Completion(resp)
	}
	if at05.Calls != n || at05.PromptTokens != prompt || at05.CompletionTokens != completion {
		t.Errorf("estimate at skill 0.5: %d calls, %d prompt, %d completion tokens; the real run: %d, %d, %d",
			at05.Calls, at05.PromptTokens, at05.CompletionTokens, n, prompt, completion)
	}
	if want := (float64(prompt)*30 + float64(completion)*60) / 1e6; math.Abs(at05.Cost-want) > 1e-9 {
		t.Errorf("cost %v, want %v", at05.Cost, want)
	}
	if prompt == 0 || completion == 0 {
		t.Error("nothing counted")
	}
}

func TestEstimateText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exp := filepath.Join(dir, "e.yaml")
	if err := os.WriteFile(exp, []byte("name: e\ntask: game24\nrange: \"900:902\"\nstrategies:\n  - cot: {k: 2}\n  - io: {k: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"estimate", "--preset", "tot-game24/cot", "--range", "900:902", "--model", "gpt-4o"},
			[]string{"SIMULATED dry run", "o200k_base, gpt-4o's tokenizer", "Range over simulator skills 0.2, 0.5, 0.8", "$2.5 per 1M prompt tokens"}},
		{[]string{"estimate", "--task", "game24", "--strategy", "io", "--range", "900:902", "--model", "Qwen/Qwen3-8B"},
			[]string{"APPROXIMATION", "cost unknown: no price for Qwen/Qwen3-8B"}},
		{[]string{"estimate", "-f", exp, "--model", "gpt-4", "--skills", "0.5"},
			[]string{"game24 cot k=2", "game24 io k=2", "| total"}},
	}
	for _, c := range cases {
		code, out, stderr := cli(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: %s", c.args, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
	if code, _, stderr := cli(t, "estimate", "--preset", "tot-game24/cot", "--skills", "2"); code != 2 || !strings.Contains(stderr, "--skills") {
		t.Errorf("bad --skills: exit %d %q", code, stderr)
	}
}
