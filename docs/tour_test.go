package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/cmd/bench/benchtest"
)

// tourLines are the commands of the README's "## A short tour": its
// 4-space-indented lines that start with bin/bench, in order.
func tourLines(t *testing.T, readme string) []string {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "## ") {
			in = l == "## A short tour"
			continue
		}
		if in && strings.HasPrefix(l, "    bin/bench") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

// TestTour runs the README's tour as written, in order, in a scratch copy
// of the checkout with bin/bench built: each line must exit 0 within 120 s;
// a line ending in & starts a server, killed at the end. TMPDIR points at
// a fresh folder, so the tour's database starts empty and its run ids are
// the ones the README names.
func TestTour(t *testing.T) {
	lines := tourLines(t, filepath.Join("..", "README.md"))
	if len(lines) < 8 {
		t.Fatalf("README.md's \"## A short tour\" has %d bin/bench lines, want at least 8", len(lines))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	// The checkout's files, as a fresh clone has them, without its bin/
	// and results/: the tour writes nothing into the real checkout.
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		switch e.Name() {
		case "bin", "results", ".git":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	buildBench(t, filepath.Join(work, "bin", "bench"))
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)

	var servers []*exec.Cmd
	var addrs []string
	t.Cleanup(func() {
		for _, c := range servers {
			// The server runs in its own process group: end the group.
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
			_ = c.Wait()
		}
	})
	for i, line := range lines {
		if bg, ok := strings.CutSuffix(line, "&"); ok {
			c := exec.Command("sh", "-c", "exec "+bg)
			c.Dir, c.Env = work, env
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out bytes.Buffer
			c.Stdout, c.Stderr = &out, &out
			if err := c.Start(); err != nil {
				t.Fatalf("tour line %d %q: %v", i+1, line, err)
			}
			servers = append(servers, c)
			// A reader pastes the next line a moment later; the test waits
			// for the server's --addr to answer, and fails if it never does.
			if addr := addrOf(bg); addr != "" {
				addrs = append(addrs, addr)
				if err := waitListening(addr, 30*time.Second); err != nil {
					t.Fatalf("tour line %d %q: %v\n%s", i+1, line, err, out.String())
				}
			}
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		c := exec.CommandContext(ctx, "sh", "-c", line)
		c.Dir, c.Env = work, env
		start := time.Now()
		out, err := c.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("tour line %d %q: %v after %s\n%s", i+1, line, err, time.Since(start).Round(time.Millisecond), out)
		}
		t.Logf("line %d: %s (%s)", i+1, line, time.Since(start).Round(time.Millisecond))
	}
	// The servers the tour started still answer at its end.
	for _, addr := range addrs {
		if err := waitListening(addr, time.Second); err != nil {
			t.Errorf("a server the tour started is gone: %v", err)
		}
	}
}

// buildBench puts bench at bin, as make build does: benchtest's build, or
// a link to BENCH_BINARY when set (make test sets it to the bin/bench it
// has just built with make build).
func buildBench(t *testing.T, bin string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if made := benchtest.Binary(t, filepath.Dir(bin)); made != bin {
		if err := os.Symlink(made, bin); err != nil {
			t.Fatal(err)
		}
	}
}

// addrOf is the value of a line's --addr flag, or "".
func addrOf(line string) string {
	f := strings.Fields(line)
	for i, w := range f {
		if v, ok := strings.CutPrefix(w, "--addr="); ok {
			return v
		}
		if w == "--addr" && i+1 < len(f) {
			return f[i+1]
		}
	}
	return ""
}

// waitListening waits until addr accepts a TCP connection.
func waitListening(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
