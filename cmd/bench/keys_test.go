package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
)

// A mistyped flag is one line naming the nearest flag, exit 2, on every
// subcommand; -h still lists the flags.
func TestMistypedFlagOneLine(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--task", "game24", "--rnage", "900:901"}, "unknown flag --rnage: did you mean --range?"},
		{[]string{"run", "--stratgy", "cot"}, "did you mean --strategy?"},
		{[]string{"report", "--db", db, "--formt", "md"}, "did you mean --format?"},
		{[]string{"resume", "1", "--base-ulr", "http://x"}, "did you mean --base-url?"},
		{[]string{"serve-sim", "--adr", "127.0.0.1:0"}, "did you mean --addr?"},
		{[]string{"estimate", "--modle", "gpt-4"}, "did you mean --model?"},
		{[]string{"list", "--zzzzzzzz"}, "unknown flag --zzzzzzzz: (bench list -h lists the flags)"},
		{[]string{"run", "--seed", "x"}, `invalid value "x" for flag -seed`},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		oneLine(t, strings.Join(c.args, " "), stderr)
	}
	if code, _, stderr := cli(t, "run", "-h"); code != 0 || !strings.Contains(stderr, "-range") || !strings.Contains(stderr, "visible to other users in ps") {
		t.Errorf("run -h: exit %d, %q", code, stderr)
	}
}

// bench run --db in a folder this user cannot write names the cause and
// the fix in one line (run as nobody when root, whom permissions do not
// stop).
func TestRunReadOnlyFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ro := filepath.Join(root, "ro")
	os.Mkdir(ro, 0o555)
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755)
	bin := filepath.Join(root, "bench.test")
	copyFile(t, benchBinary(t), bin, 0o755)
	cmd := exec.Command(bin, "run", "--db", filepath.Join(ro, "x.db"), "--task", "game24", "--strategy", "cot", "--range", "900:901")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitUsage {
		t.Fatalf("exit %v, stderr %q", err, errb.String())
	}
	if s := errb.String(); !strings.Contains(s, "the folder "+ro+" is read-only") || !strings.Contains(s, "pass --db PATH in a folder you can write") {
		t.Errorf("stderr %q", s)
	}
	oneLine(t, "read-only folder", errb.String())
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
}

// A run that failed because its endpoint was down continues on another
// one: bench resume N --base-url URL (or $OPENAI_BASE_URL) as the failed
// run's message says.
func TestResumeAtAnotherBaseURL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	down := "http://127.0.0.1:1/v1"
	args := []string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:903", "--model", "m", "--retries", "0"}
	code, _, stderr := cli(t, append(args, "--base-url", down)...)
	if code == 0 || !strings.Contains(stderr, "bench resume 1") {
		t.Fatalf("run against a closed port: exit %d, %q", code, stderr)
	}
	up := startServeSim(t)
	if code, _, stderr := cli(t, "resume", "1", "--db", db, "--base-url", up); code != 0 {
		t.Fatalf("resume --base-url: exit %d, %q", code, stderr)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.GetRun(context.Background(), 1)
	if err != nil || r.Status != store.StatusDone {
		t.Fatalf("run 1 %+v %v", r, err)
	}
	items, _ := st.Items(context.Background(), 1)
	if len(items) != 3 {
		t.Errorf("%d items", len(items))
	}
	// Through the variable, a second failed run.
	code, _, _ = cli(t, append(args, "--base-url", down)...)
	if code == 0 {
		t.Fatal("second run against a closed port succeeded")
	}
	t.Setenv("OPENAI_BASE_URL", up)
	if code, _, stderr := cli(t, "resume", "2", "--db", db); code != 0 {
		t.Fatalf("resume with $OPENAI_BASE_URL: exit %d, %q", code, stderr)
	}
}

// bench list wraps its help text between words at listWidth columns, and
// every strategy's and parameter's text is there whole.
func TestListWrapsAtWords(t *testing.T) {
	t.Parallel()
	code, out, stderr := cli(t, "list")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > listWidth && len(strings.Fields(line)) > 1 &&
			!strings.HasPrefix(strings.TrimSpace(line), "--") && !strings.HasPrefix(strings.TrimSpace(line), "sim ") {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, s := range strategies.Registry() {
		texts := []string{s.Doc, s.Shares}
		for _, p := range s.Params {
			texts = append(texts, p.Doc)
		}
		for _, text := range texts {
			if want := strings.Join(strings.Fields(text), " "); !strings.Contains(flat, want) {
				t.Errorf("strategy %s: text not whole in bench list: %q", s.Name, want)
			}
		}
	}
}

// A canary key given as --api-key, which a program reads and writes to
// its stderr, into a request and its answer, and which a refusing server
// quotes back, is nowhere afterwards: not in the database file, not in an
// export with the calls, not on bench's output.
func TestCanaryKeyNowhere(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-cli-0b7e41aa"
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(canary), 0o600)
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	api := llm.NewServer(m, llm.ServerOptions{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/refuse/") { // quotes the key it was sent
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error": {"message": "invalid key %s", "type": "auth"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return
		}
		r.URL.Path = strings.TrimPrefix(r.URL.Path, "/ok")
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()
	script, err := filepath.Abs("../../bench/testdata/steal_key.py")
	if err != nil {
		t.Fatal(err)
	}
	prog := "python3 " + script + " " + keyFile
	var logs strings.Builder
	code, out, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "program", "--range", "900:902",
		"--set", "cmd="+prog, "--base-url", srv.URL+"/ok/v1", "--model", "m", "--api-key", canary)
	logs.WriteString(out + stderr)
	if code != 0 {
		t.Fatalf("program run: exit %d: %s", code, stderr)
	}
	code, out, stderr = cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901",
		"--base-url", srv.URL+"/refuse/v1", "--model", "m", "--api-key", canary, "--retries", "0")
	logs.WriteString(out + stderr)
	if code == 0 || !strings.Contains(stderr, "invalid key") {
		t.Fatalf("refused run: exit %d: %s", code, stderr)
	}
	export := filepath.Join(dir, "export.jsonl")
	for _, id := range []string{"1", "2"} {
		code, out, stderr = cli(t, "export", id, "--db", db, "--calls", "--out", export+id)
		logs.WriteString(out + stderr)
		if code != 0 {
			t.Fatalf("export: %s", stderr)
		}
	}
	code, out, stderr = cli(t, "show", "1", "--db", db, "--item", "900")
	logs.WriteString(out + stderr)
	if !strings.Contains(out, "[redacted key]") {
		t.Errorf("bench show does not show the redacted stderr:\n%s", out)
	}
	if strings.Contains(logs.String(), canary) {
		t.Errorf("bench printed the key:\n%s", logs.String())
	}
	for _, f := range []string{db, db + "-wal", export + "1", export + "2"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s holds the key", f)
		}
	}
	b, _ := os.ReadFile(export + "1")
	if !bytes.Contains(b, []byte("stolen: [redacted key]")) || !bytes.Contains(b, []byte("the key is [redacted key]")) {
		t.Errorf("the export lacks the redacted stderr or request:\n%.2000s", b)
	}
}

// bench run's --judge-api-key and $JUDGE_API_KEY reach the judge's
// endpoint, and the run's key does not.
func TestJudgeKeyFlags(t *testing.T) {
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	api := llm.NewServer(m, llm.ServerOptions{})
	var mu sync.Mutex
	seen := map[string]map[string]bool{} // server → Authorization values
	serve := func(name string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			if seen[name] == nil {
				seen[name] = map[string]bool{}
			}
			seen[name][r.Header.Get("Authorization")] = true
			mu.Unlock()
			api.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	runSrv, judgeSrv := serve("run"), serve("judge")
	t.Setenv("OPENAI_API_KEY", "sk-RUN-in-env-1234")
	for i, c := range []struct {
		flags []string
		env   string
		want  string
	}{
		{[]string{"--judge-api-key", "sk-JUDGE-flag-1"}, "", "Bearer sk-JUDGE-flag-1"},
		{nil, "sk-JUDGE-env-22", "Bearer sk-JUDGE-env-22"},
		{nil, "", ""},
	} {
		t.Setenv("JUDGE_API_KEY", c.env)
		mu.Lock()
		seen = map[string]map[string]bool{}
		mu.Unlock()
		db := filepath.Join(t.TempDir(), "b.db")
		args := append([]string{"run", "--db", db, "--preset", "tot-creative/io", "--range", fmt.Sprintf("%d:%d", i, i+1),
			"--base-url", runSrv.URL + "/v1", "--model", "m", "--judge-base-url", judgeSrv.URL + "/v1", "--judge-model", "j"}, c.flags...)
		if code, _, stderr := cli(t, args...); code != 0 {
			t.Fatalf("%v: %s", c.flags, stderr)
		}
		mu.Lock()
		if len(seen["judge"]) != 1 || !seen["judge"][c.want] || len(seen["run"]) != 1 || !seen["run"]["Bearer sk-RUN-in-env-1234"] {
			t.Errorf("flags %v, $JUDGE_API_KEY %q: judge saw %v, run saw %v", c.flags, c.env, seen["judge"], seen["run"])
		}
		mu.Unlock()
	}
}

// bench view --open starts the browser (xdg-open) without the keys in
// bench's environment.
func TestViewOpenWithoutKeys(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	dump := filepath.Join(dir, "env")
	os.WriteFile(filepath.Join(dir, "xdg-open"), []byte("#!/bin/sh\nenv > "+dump+".tmp && mv "+dump+".tmp "+dump+"\n"), 0o755)
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	t.Setenv("OPENAI_API_KEY", "sk-view-canary-99")
	t.Setenv("XAUTHORITY", "/tmp/xauth-cookie")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cmdView(ctx, []string{"--db", db, "--addr", "127.0.0.1:0", "--open"}, io.Discard, io.Discard)
	}()
	var env []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if env, err = os.ReadFile(dump); err == nil {
			break
		}
	}
	cancel()
	<-done
	if env == nil {
		t.Fatal("xdg-open never ran")
	}
	if bytes.Contains(env, []byte("sk-view-canary")) || !bytes.Contains(env, []byte("XAUTHORITY=/tmp/xauth-cookie")) {
		t.Errorf("the browser's environment:\n%s", env)
	}
}
