package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bench proxy as a process: it prints the base URL and key, records what
// a client sends through it to an upstream model, and on SIGTERM stores
// the run as done; the upstream's API key reaches neither the client's
// answers nor the database.
func TestProxyCommand(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	upstream := startServeSim(t)
	db := filepath.Join(t.TempDir(), "p.db")
	const secret = "sk-upstream-secret-4711"
	cmd := exec.Command(benchBinary(t), "proxy", "--db", db, "--name", "agent", "--base-url", upstream, "--model", "sim")
	cmd.Env = append(os.Environ(), childEnv+"=1", "OPENAI_API_KEY="+secret)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(out)
	env := map[string]string{}
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		env[k] = v
	}
	base, key := env["OPENAI_BASE_URL"], env["OPENAI_API_KEY"]
	if !strings.HasPrefix(base, "http://127.0.0.1:") || key == "" || key == secret {
		t.Fatalf("printed %v", env)
	}
	body := `{"model":"x","messages":[{"role":"user","content":"Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: 4 4 6 8\nAnswer:"}],"n":2,"temperature":0.7}`
	for _, url := range []string{base, strings.TrimSuffix(base, "/v1") + "/item/7/v1"} {
		req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || bytes.Contains(b, []byte(secret)) {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "run 1 done: 2 items, 2 calls") {
		t.Errorf("stderr: %s", stderr.String())
	}
	code, exported, errs := cli(t, "export", "1", "--db", db, "--calls")
	if code != 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(exported), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), exported)
	}
	var item struct {
		Idx   int `json:"idx"`
		Calls []struct {
			Purpose string          `json:"purpose"`
			Request json.RawMessage `json:"request"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &item); err != nil {
		t.Fatal(err)
	}
	if item.Idx != 7 || len(item.Calls) != 1 || item.Calls[0].Purpose != "proxy" || !strings.Contains(string(item.Calls[0].Request), `"call":"p/`) {
		t.Errorf("item %+v", item)
	}
	for _, f := range []string{db, db + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && (bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(key))) {
			t.Errorf("%s holds a key", f)
		}
	}
}
