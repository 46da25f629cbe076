package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
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
	var served stringList
	fs.Var(&served, "served-model-name", "the model NAME(s) served, as vLLM's: --served-model-name A [B ...] (or repeated, or A,B); another name is answered with vLLM's 404 (default: any name is answered)")
	args, names := cutServedNames(args)
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, n := range append(names, served...) {
		for _, x := range strings.Split(n, ",") {
			if x = strings.TrimSpace(x); x != "" && !slices.Contains(names, x) {
				names = append(names, x)
			}
		}
	}
	if len(names) == 0 && (slices.Contains(args, "--served-model-name") || slices.Contains(args, "-served-model-name")) {
		return usageError{errors.New("--served-model-name: give at least one NAME")}
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
	card, fingerprint := bench.SimCard(*params, len(names) == 0)
	opts := llm.ServerOptions{Latency: *latency, MaxN: *maxN, IgnoreN: *ignoreN, ThinkInline: *thinkInline,
		ReasoningField: *reasoningField, RejectParams: reject, NoUsage: *noUsage,
		Fingerprint: fingerprint, Card: card, Served: names, V1Only: true}
	// The simulated verifier is served as a process reward model is, on
	// vLLM's /pooling and SGLang's /classify, beside the chat API.
	handler := bench.WithRewardModel(llm.NewServer(model, opts), sm, *stepTag)
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	serving := "any model name"
	if len(names) > 0 {
		serving = "model " + strings.Join(names, ", ")
	}
	fmt.Fprintf(stdout, "serving the simulated model at http://%s/v1 (skill %.2f, slip %.2f, misjudge %.2f; %s; fingerprint %s)\n",
		ln.Addr(), params.Skill, params.Slip, params.Misjudge, serving, fingerprint)
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

// cutServedNames takes vLLM's form --served-model-name A B ... out of
// args: the names after the flag up to the next flag.
func cutServedNames(args []string) (rest, names []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a != "--served-model-name" && a != "-served-model-name" {
			rest = append(rest, a)
			continue
		}
		j := i + 1
		for ; j < len(args) && !strings.HasPrefix(args[j], "-"); j++ {
			names = append(names, args[j])
		}
		if j == i+1 {
			rest = append(rest, a) // no name: parse says so
		}
		i = j - 1
	}
	return rest, names
}
