package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/verify"
)

func cmdServeSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve-sim", stderr)
	addr := fs.String("addr", "127.0.0.1:8088", "address to listen on")
	latency := fs.Duration("latency", 0, "delay added before answering each request")
	maxN := fs.Int("max-n", 0, "most choices per request (0: as many as asked, up to 128; more is a 400)")
	ignoreN := fs.Bool("ignore-n", false, "answer one choice per request, as Ollama does")
	thinkInline := fs.Bool("think-inline", false, "think before answering and write the thinking into the content as <think>…</think>, as a thinking model served without a reasoning parser does (the thinking is a draft that misleads any parser reading it)")
	reasoningField := fs.String("reasoning-field", "", "think before answering and return the thinking in this message field (reasoning or reasoning_content), as a server with a reasoning parser does")
	var reject stringList
	fs.Var(&reject, "reject-param", "answer 400 naming this request field when a request carries it, in OpenAI's error shape (repeatable), e.g. temperature as OpenAI's reasoning models do")
	noUsage := fs.Bool("no-usage", false, "send no usage in responses, as some servers do")
	stepTag := fs.String("step-tag", verify.DefaultSep, "the simulated verifier's step tag on /pooling and /classify (a prm server's step pooler)")
	params := simFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *thinkInline && *reasoningField != "" {
		return usageError{errors.New("--think-inline and --reasoning-field: pick one place for the thinking")}
	}
	sm, err := bench.NewSim(*params)
	if err != nil {
		return usageError{err}
	}
	var model llm.Sampler = sm
	if *thinkInline || *reasoningField != "" {
		model = sim.Thinking(sm)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usageError{fmt.Errorf("listen on %s: %w (pick a free --addr)", *addr, err)}
	}
	opts := llm.ServerOptions{Latency: *latency, MaxN: *maxN, IgnoreN: *ignoreN, ThinkInline: *thinkInline,
		ReasoningField: *reasoningField, RejectParams: reject, NoUsage: *noUsage}
	// The simulated verifier is served as a process reward model is, on
	// vLLM's /pooling and SGLang's /classify, beside the chat API.
	handler := bench.WithRewardModel(llm.NewServer(model, opts), sm, *stepTag)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving the simulated model at http://%s/v1 (skill %.2f, slip %.2f, misjudge %.2f)\n",
		ln.Addr(), params.Skill, params.Slip, params.Misjudge)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
