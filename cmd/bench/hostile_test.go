package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/tasks/gsm8k"
)

// byQuestion answers each GSM8K question shown in a prompt with its own
// program: a scripted model, for hostile programs.
type byQuestion map[string]string

func (b byQuestion) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	text := req.Messages[len(req.Messages)-1].Content
	q := text[strings.LastIndex(text, "Question: ")+len("Question: "):]
	prog, ok := b[strings.TrimSpace(q)]
	if !ok {
		return llm.Response{}, fmt.Errorf("no program for %q", q)
	}
	var resp llm.Response
	for i := range req.Samples() {
		resp.Choices = append(resp.Choices, llm.Choice{Index: i, Content: "```python\n" + prog + "\n```"})
	}
	return resp, nil
}

// Hostile programs through `bench run`: pal (k=1) on GSM8K against a
// scripted endpoint on 127.0.0.1 whose every answer is an attack. Each is
// contained and recorded as the item's failure with its reason (the stored
// execution's status), the run completes, another run's rows in the same
// database are unchanged, a listener on 127.0.0.1 sees no connection, and
// the API key the CLI was given appears in nothing stored.
func TestHostileProgramsThroughBenchRun(t *testing.T) {
	sandboxtest.Runner(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	const secret = "sk-hostile-test-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", secret)

	// An earlier run in the database, whose rows must come out unchanged.
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "gsm8k", "--strategy", "cot", "--range", "0:3", "--json"); code != 0 {
		t.Fatalf("earlier run: %s", stderr)
	}
	before := storedRun(t, db, 1)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	outside := filepath.Join(dir, "escaped.txt")
	late := filepath.Join(dir, "late.txt")

	attacks := []attack{
		{"infinite loop", "def solution():\n    while True:\n        pass", []string{"timeout", "cpu"}},
		{"fork bomb", "import os\ndef solution():\n    while True:\n        os.fork()", []string{"timeout", "exit", "procs"}},
		{"20 GB", "def solution():\n    x = bytearray(20 * 2**30)\n    return len(x)", []string{"memory"}},
		{"1 GB of output", "def solution():\n    for _ in range(1024):\n        print('x' * 2**20)\n    return 0", []string{"output"}},
		{"the run's database", fmt.Sprintf("import os\ndef solution():\n    data = open(%q, 'rb').read()\n    os.remove(%q)\n    return len(data)", db, db), []string{"exit"}},
		{"/etc/shadow", "def solution():\n    return open('/etc/shadow').read()", []string{"exit"}},
		{"OPENAI_API_KEY", "import os\ndef solution():\n    return os.environ.get('OPENAI_API_KEY', 'absent')", []string{"ok"}},
		{"127.0.0.1", fmt.Sprintf("import socket\ndef solution():\n    s = socket.create_connection(('127.0.0.1', %d), timeout=2)\n    s.sendall(b'hello')\n    return 1", port), []string{"exit"}},
		{"outside its directory", fmt.Sprintf("def solution():\n    open(%q, 'w').write('out')\n    return 1", outside), []string{"exit"}},
		{"a child that outlives it", fmt.Sprintf("import os, time\ndef solution():\n    if os.fork() == 0:\n        time.sleep(3)\n        open(%q, 'w').write('late')\n        os._exit(0)\n    return 'parent done'", late), []string{"ok"}},
		// kill(-1) signals every process it may but itself and the
		// namespace's init: here none, so it fails.
		{"os.kill(-1, 9)", "import os\ndef solution():\n    os.kill(-1, 9)\n    return 1", []string{"exit", "crash"}},
	}
	insts, err := gsm8k.NewTask().Instances()
	if err != nil {
		t.Fatal(err)
	}
	model := byQuestion{}
	for i, a := range attacks {
		model[insts[i].Input] = a.program
	}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{}))
	defer srv.Close()

	code, out, stderr := cli(t, "run", "--db", db, "--task", "gsm8k", "--strategy", "pal", "--set", "timeout=3",
		"--range", fmt.Sprintf("0:%d", len(attacks)), "--base-url", srv.URL+"/v1", "--model", "scripted", "--concurrency", "1", "--json")
	if code != 0 {
		t.Fatalf("hostile run: exit %d: %s", code, stderr)
	}
	var sum bench.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	ln.Close()
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener on 127.0.0.1 accepted %d connections", n)
	}
	for _, p := range []string{outside, late} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was written outside the sandbox (%v)", p, err)
		}
	}

	st, err := openStore(t.Context(), db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != len(attacks) {
		t.Fatalf("%d items stored, want %d", len(items), len(attacks))
	}
	var stored bytes.Buffer
	for i, a := range attacks {
		it := items[i]
		execs, err := st.Executions(t.Context(), 2, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		if it.Error != "" || it.Correct || len(execs) != 1 || execs[0].Site != "s0/run" {
			t.Errorf("%s: item error %q, correct %v, executions %d", a.name, it.Error, it.Correct, len(execs))
			continue
		}
		e := execs[0]
		var d struct {
			Samples []struct{ Status, Error, Reason, Value string }
		}
		if err := json.Unmarshal(it.Detail, &d); err != nil || len(d.Samples) != 1 {
			t.Fatalf("%s: detail %s", a.name, it.Detail)
		}
		smp := d.Samples[0]
		ok := false
		for _, s := range a.status {
			ok = ok || e.Status == s
		}
		if !ok || smp.Status != e.Status || smp.Reason == "" {
			t.Errorf("%s: execution status %q (sample %+v), want one of %v; stderr tail %q", a.name, e.Status, smp, a.status, tail(e.Stderr, 300))
		}
		if e.DurationMS > 8000 && a.name != "fork bomb" {
			t.Errorf("%s: ran %.0f ms, beyond its limits", a.name, e.DurationMS)
		}
		switch a.name {
		case "OPENAI_API_KEY":
			if smp.Value != "absent" {
				t.Errorf("the program saw OPENAI_API_KEY = %q", smp.Value)
			}
		case "a child that outlives it":
			if smp.Value != "parent done" || e.DurationMS > 2500 {
				t.Errorf("outliving child: value %q after %.0f ms", smp.Value, e.DurationMS)
			}
		}
		t.Logf("%-26s %-8s %s", a.name, e.Status, smp.Reason)
		fmt.Fprintln(&stored, it.Output, string(it.Detail), e.Program, e.Stdout, e.Stderr)
	}
	if sum.N != len(attacks) || sum.Status != "done" || sum.Accuracy != 0 {
		t.Errorf("summary: %d items, accuracy %v", sum.N, sum.Accuracy)
	}
	if after := storedRun(t, db, 1); !reflect.DeepEqual(before, after) {
		t.Errorf("the earlier run's rows changed:\nbefore %v\nafter  %v", before, after)
	}
	for _, f := range []string{db, db + "-wal"} {
		raw, _ := os.ReadFile(f)
		stored.Write(raw)
	}
	if strings.Contains(stored.String(), secret) {
		t.Error("the API key is stored")
	}
}

type attack struct {
	name, program string
	status        []string // the stored execution's status, any of
}

// storedRun is a run's items as stored, for comparison.
func storedRun(t *testing.T, db string, id int64) []string {
	t.Helper()
	st, err := openStore(t.Context(), db, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.GetRun(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{fmt.Sprintf("%+v", run)}
	for _, it := range items {
		out = append(out, fmt.Sprintf("%+v", it))
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
