package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
)

// syncBuffer is a bytes.Buffer the bar's clock and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls the buffer until it holds want, failing after 5 s.
func waitFor(t *testing.T, buf *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(buf.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in %q", want, buf.String())
		}
	}
}

// TestProgressWhileWaiting: before the first item ends (a hung endpoint)
// a terminal shows a line saying what bench waits for, redrawn as time
// passes, and a log gets one such line after a quiet while; the first
// item's progress takes its place; the URL's credentials are not shown.
func TestProgressWhileWaiting(t *testing.T) {
	const url = "http://user:sk-canary-progress@127.0.0.1:9/v1?api-key=sk-canary-progress"
	t.Run("terminal", func(t *testing.T) {
		buf := &syncBuffer{}
		bar := &progressBar{w: buf, tty: true, tick: 5 * time.Millisecond, quiet: time.Hour}
		bar.start(url)
		waitFor(t, buf, "waiting for the first answer from http://127.0.0.1:9/v1")
		bar.update(bench.Progress{Done: 1, Total: 4, Elapsed: time.Second})
		waitFor(t, buf, "1/4")
		n := strings.Count(buf.String(), "waiting")
		time.Sleep(50 * time.Millisecond)
		bar.finish()
		if got := buf.String(); strings.Count(got, "waiting") != n || strings.Contains(got, "sk-canary") {
			t.Errorf("after the first item: %q", got)
		}
	})
	t.Run("log", func(t *testing.T) {
		buf := &syncBuffer{}
		bar := &progressBar{w: buf, tick: 5 * time.Millisecond, quiet: 20 * time.Millisecond}
		bar.start(url)
		waitFor(t, buf, "waiting for the first answer from http://127.0.0.1:9/v1")
		bar.update(bench.Progress{Done: 1, Total: 4})
		time.Sleep(100 * time.Millisecond)
		bar.finish()
		if got := buf.String(); strings.Contains(got, "\r") || strings.Count(got, "\n") != 1 || strings.Contains(got, "sk-canary") {
			t.Errorf("a log got %q, want one line", got)
		}
	})
	t.Run("fast", func(t *testing.T) {
		buf := &syncBuffer{}
		bar := &progressBar{w: buf, tick: 5 * time.Millisecond, quiet: 50 * time.Millisecond}
		bar.start(url)
		bar.update(bench.Progress{Done: 1, Total: 4})
		time.Sleep(100 * time.Millisecond)
		bar.finish()
		if got := buf.String(); got != "" {
			t.Errorf("a log of a run that answered at once got %q", got)
		}
	})
}

// TestProgressSimulatorLogQuiet: a log of a run on the in-process
// simulator gets no waiting line (it cannot hang on a network).
func TestProgressSimulatorLogQuiet(t *testing.T) {
	buf := &syncBuffer{}
	bar := &progressBar{w: buf, tick: time.Millisecond, quiet: time.Millisecond}
	bar.start("")
	time.Sleep(50 * time.Millisecond)
	bar.finish()
	if got := buf.String(); got != "" {
		t.Errorf("got %q", got)
	}
}
