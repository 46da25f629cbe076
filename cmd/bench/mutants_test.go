package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tools"
)

// TestErrorLineRedacted: bench's one error line holds no key it knows,
// even one the model client does not remove (a judge's key quoted by the
// run's endpoint).
func TestErrorLineRedacted(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-error-line-7a3d"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error": {"message": "key `+canary+` is not valid here", "type": "invalid_request_error"}}`)
	}))
	defer srv.Close()
	code, _, stderr := cli(t, "run", "--db", t.TempDir()+"/b.db", "--task", "game24", "--strategy", "cot", "--range", "900:901",
		"--base-url", srv.URL+"/v1", "--model", "m", "--api-key", "sk-the-run-own-key", "--judge-api-key", canary, "--retries", "0")
	if code == 0 || !strings.HasPrefix(stderr, "bench run: ") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, canary) || !strings.Contains(stderr, "key [redacted key] is not valid here") {
		t.Errorf("error line %q", stderr)
	}
}

// TestMCPServeHTTPPrintsItsAddress: `bench mcp serve --http 127.0.0.1:0`
// prints the address it listens on (the port the system chose), and a
// client reaches the task's tools there.
func TestMCPServeHTTPPrintsItsAddress(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdMCP(ctx, []string{"serve", "--task", "hotpotqa", "--http", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("mcp serve: %v", err)
		}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no address in %q", line)
	}
	url := strings.Fields(line[i:])[0]
	if strings.Contains(url, ":0/") || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("printed address %q", url)
	}
	set, _, err := tools.Connect(ctx, []tools.Server{{Name: "hotpot", URL: url}}, nil)
	if err != nil {
		t.Fatalf("connecting to the printed address %s: %v", url, err)
	}
	defer set.Close()
	var names []string
	for _, s := range set.Specs() {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"lookup", "search"}) {
		t.Errorf("tools at %s: %v", url, names)
	}
}

// TestServedNamesThenShortFlag: vLLM's --served-model-name A B takes the
// names up to the next flag, one dash or two.
func TestServedNamesThenShortFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args, rest, names []string
	}{
		{[]string{"--served-model-name", "A", "B", "-addr", "127.0.0.1:0"}, []string{"-addr", "127.0.0.1:0"}, []string{"A", "B"}},
		{[]string{"-addr", "X", "-served-model-name", "A", "--sim-skill", "0.9"}, []string{"-addr", "X", "--sim-skill", "0.9"}, []string{"A"}},
		{[]string{"--served-model-name", "-addr", "X"}, []string{"--served-model-name", "-addr", "X"}, nil},
	} {
		rest, names := cutServedNames(c.args)
		if !slices.Equal(rest, c.rest) || !slices.Equal(names, c.names) {
			t.Errorf("cutServedNames(%q) = %q, %q; want %q, %q", c.args, rest, names, c.rest, c.names)
		}
	}
	// The whole command: it listens where -addr says and serves A and B.
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdServeSim(ctx, []string{"--served-model-name", "A", "B", "-addr", "127.0.0.1:0"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	cancel()
	go io.Copy(io.Discard, pr)
	if derr := <-done; err != nil || derr != nil {
		t.Fatalf("serve-sim: %v, %v", err, derr)
	}
	if !strings.Contains(line, "http://127.0.0.1:") || !strings.Contains(line, "model A, B;") {
		t.Errorf("serve-sim said %q", line)
	}
}
