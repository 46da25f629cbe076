package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/verify"
)

func TestVerifierFlagsExitTwoWithOneLine(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	run := []string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "0:1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--verifier-kind", "rm"}, `--verifier-kind "rm": want one of prm, orm, llm`},
		{[]string{"--verifier-server", "tgi"}, `--verifier-server "tgi": want one of vllm, sglang`},
		{[]string{"--verifier-base-url", "localhost:8001"}, `--verifier-base-url "localhost:8001"`},
		{[]string{"--verifier-model", "Qwen/Qwen2.5-Math-PRM-7B"}, "--verifier-model: strategy cot asks no verifier"},
		{[]string{"--verifier-sep", "ки"}, "--verifier-sep: strategy cot asks no verifier"},
		{[]string{"--sim-verify-flip", "2"}, "sim verify_flip=2"},
		{[]string{"--sim-verify-spread", "0.5"}, "sim verify_spread=0.5"},
	} {
		code, _, stderr := cli(t, append(run, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
	_, _, help := cli(t, "run", "--help")
	for _, want := range []string{"-sim-verify-flip float", "(default 0.1)", "-sim-verify-spread float", "(default 0.15)",
		"-verifier-kind string", "-verifier-model string", "-verifier-base-url string", "-verifier-sep string", "-verifier-server string"} {
		if !strings.Contains(help, want) {
			t.Errorf("bench run --help lacks %q", want)
		}
	}
}

// bench serve-sim serves the simulated verifier as a reward model on
// vLLM's /pooling and SGLang's /classify, scoring as it does in process.
func TestServeSimServesTheVerifier(t *testing.T) {
	t.Parallel()
	base := strings.TrimSuffix(startServeSim(t), "/v1")
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	model, err := bench.NewSim(bench.DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	local, err := verify.New(model, verify.Options{Kind: verify.PRM, Prompts: lib})
	if err != nil {
		t.Fatal(err)
	}
	req := verify.Request{Call: "s0/verify", Problem: "4 4 6 8",
		Steps: []string{"4 + 8 = 12 (left: 4 6 12)", "6 - 4 = 3 (left: 3 12)", "3 * 12 = 36 (left: 36)"}}
	want, err := local.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, server := range verify.Servers {
		p, err := verify.NewPooling(verify.PoolingConfig{BaseURL: base, Model: "sim", Server: server})
		if err != nil {
			t.Fatal(err)
		}
		remote, _ := verify.New(p, verify.Options{Kind: verify.PRM, Prompts: lib})
		got, err := remote.Verify(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || len(want) != 3 {
			t.Fatalf("%s: %v, in process %v", server, got, want)
		}
		for i := range got {
			if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
				t.Errorf("%s: %v, in process %v", server, got, want)
			}
		}
	}
	// Another step tag on the server: the solution's tags are not its
	// steps, and the count no longer matches.
	other := strings.TrimSuffix(startServeSim(t, "--step-tag", "ки"), "/v1")
	p, _ := verify.NewPooling(verify.PoolingConfig{BaseURL: other, Model: "sim"})
	remote, _ := verify.New(p, verify.Options{Kind: verify.PRM, Prompts: lib})
	if _, err := remote.Verify(context.Background(), req); err == nil || !strings.Contains(err.Error(), "--verifier-sep") {
		t.Errorf("a server on another step tag: %v", err)
	}
}
