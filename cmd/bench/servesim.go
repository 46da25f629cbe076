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
)

func cmdServeSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve-sim", stderr)
	addr := fs.String("addr", "127.0.0.1:8088", "address to listen on")
	latency := fs.Duration("latency", 0, "delay added before answering each request")
	maxN := fs.Int("max-n", 0, "most choices per request (0: as many as asked)")
	ignoreN := fs.Bool("ignore-n", false, "answer one choice per request, as Ollama does")
	params := simFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	model, err := bench.NewSim(*params)
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usageError{fmt.Errorf("listen on %s: %w (pick a free --addr)", *addr, err)}
	}
	srv := &http.Server{Handler: llm.NewServer(model, llm.ServerOptions{Latency: *latency, MaxN: *maxN, IgnoreN: *ignoreN}),
		ReadHeaderTimeout: 10 * time.Second}
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
