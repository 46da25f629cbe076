package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// nodeCheckDir holds scripts/openai-node: check.mjs and, after
// scripts/install-openai-node.sh, its node_modules.
const nodeCheckDir = "../../scripts/openai-node"

// needNodeCheck skips unless node and the installed openai module are
// there; with BENCH_REQUIRE_NODE=1 (CI) their absence fails the test.
func needNodeCheck(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeCheckDir, "node_modules", "openai", "package.json"))
	}
	if err != nil {
		msg := "the npm openai client checks need node and scripts/install-openai-node.sh: " + err.Error()
		if os.Getenv("BENCH_REQUIRE_NODE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}

// nodeFixture writes the prompts check.mjs sends: game24's cot prompt for
// chat and completions, and its ReAct prompt with the arithmetic tools,
// which the simulator answers with a tool call.
func nodeFixture(t *testing.T) string {
	t.Helper()
	const puzzle = "4 5 6 10"
	nums, err := game24.ParsePuzzle(puzzle)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := game24.NewTask().Tools(tasks.Instance{Input: puzzle, Data: game24.Puzzle{Numbers: nums}})
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	var specs []tool
	for _, tl := range tools {
		specs = append(specs, tool{"function", fn{tl.Name, tl.Description, tl.Schema()}})
	}
	cot := renderedPrompt(t, "game24/cot", puzzle)
	fx, err := json.Marshal(map[string]any{
		"chat_prompt": cot, "completion_prompt": cot, "tools": specs,
		"tools_prompt": renderedData(t, "game24/react_tools", map[string]any{"Input": puzzle, "MaxSteps": 6}),
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, fx, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runNodeCheck runs check.mjs against baseURL and returns its report; the
// recording endpoint's test calls it with that endpoint's URL and token.
func runNodeCheck(t *testing.T, node, baseURL, key string) (string, error) {
	t.Helper()
	cmd := exec.Command(node, "check.mjs", "--base-url", baseURL, "--key", key, "--fixture", nodeFixture(t))
	cmd.Dir = nodeCheckDir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
		}
	}()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// serve-sim passes the official npm openai client's checks: n, streaming
// (raw chunks and the SDK's own helper), tools (also streamed),
// completions, and the error shape.
func TestServeSimOpenAINodeClient(t *testing.T) {
	t.Parallel()
	node := needNodeCheck(t)
	url := startServeSim(t)
	out, err := runNodeCheck(t, node, url, "unused")
	if err != nil {
		t.Fatalf("check.mjs against serve-sim: %v\n%s", err, out)
	}
	for _, name := range []string{"chat n=3", "chat stream", "chat stream helper", "tools", "tools stream", "completions", "completions stream", "bad request"} {
		if !strings.Contains(out, "ok "+name+":") {
			t.Errorf("check %q did not pass:\n%s", name, out)
		}
	}
	t.Logf("\n%s", out)
}

// The check fails, naming the check, against a server that breaks the API:
// serve-sim answering one choice per request (--ignore-n, as Ollama does).
func TestOpenAINodeCheckCanFail(t *testing.T) {
	t.Parallel()
	node := needNodeCheck(t)
	url := startServeSim(t, "--ignore-n")
	out, err := runNodeCheck(t, node, url, "unused")
	if err == nil || !strings.Contains(out, "FAIL chat n=3: 1 choices, want 3") {
		t.Fatalf("check.mjs against --ignore-n: %v\n%s", err, out)
	}
	url = startServeSim(t, "--no-usage")
	out, err = runNodeCheck(t, node, url, "unused")
	if err == nil || !strings.Contains(out, "FAIL chat n=3: chat: usage") {
		t.Fatalf("check.mjs against --no-usage: %v\n%s", err, out)
	}
}

// renderedData renders a bundled template with any data.
func renderedData(t *testing.T, name string, data any) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.Render(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The recording endpoint passes the same npm openai client checks as
// serve-sim: `bench proxy` (the endpoint a program run gives each item,
// over the simulator) at its default item and at /item/3/v1, with the
// token it prints. Every call the client made is stored as a call of its
// item, the malformed request is refused, and a client without the token
// gets nothing.
func TestRecordingEndpointOpenAINodeClient(t *testing.T) {
	t.Parallel()
	node := needNodeCheck(t)
	db := filepath.Join(t.TempDir(), "p.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- cmdProxy(ctx, []string{"--db", db, "--name", "node-check"}, pw, &stderr)
		pw.Close()
	}()
	r := bufio.NewReader(pr)
	env := map[string]string{}
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			cancel()
			t.Fatalf("bench proxy: %v (%v)", err, <-done)
		}
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		env[k] = v
	}
	go io.Copy(io.Discard, r)
	base, key := env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"]
	checks := []string{"chat n=3", "chat stream", "chat stream helper", "tools", "tools stream", "completions", "completions stream", "bad request"}
	for _, url := range []string{base, strings.TrimSuffix(base, "/v1") + "/item/3/v1"} {
		out, err := runNodeCheck(t, node, url, key)
		if err != nil {
			t.Fatalf("check.mjs against the recording endpoint %s: %v\n%s", url, err, out)
		}
		for _, name := range checks {
			if !strings.Contains(out, "ok "+name+":") {
				t.Errorf("%s: check %q did not pass:\n%s", url, name, out)
			}
		}
		t.Logf("%s\n%s", url, out)
	}
	if out, err := runNodeCheck(t, node, base, "not-the-token"); err == nil || !strings.Contains(out, "FAIL chat n=3") {
		t.Errorf("check.mjs without the token: %v\n%s", err, out)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("bench proxy: %v: %s", err, stderr.String())
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Index != 0 || items[1].Index != 3 {
		t.Fatalf("items %+v", items)
	}
	for _, it := range items {
		calls, err := st.Calls(context.Background(), 1, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		// One stored call per check that reached the model: all but the
		// malformed request.
		if len(calls) != len(checks)-1 || it.Calls != len(checks)-1 {
			t.Errorf("item %d: %d calls stored (item says %d), want %d", it.Index, len(calls), it.Calls, len(checks)-1)
		}
		for _, c := range calls {
			if c.Purpose != "proxy" || c.Error != "" {
				t.Errorf("item %d: call %+v", it.Index, c)
			}
		}
	}
	// Two checks' malformed requests and the keyless client's first.
	if want := fmt.Sprintf("2 items, %d calls", 2*(len(checks)-1)); !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), ", 3 refused") {
		t.Errorf("want %q and 3 refusals: %s", want, stderr.String())
	}
	t.Logf("%s", stderr.String())
}
