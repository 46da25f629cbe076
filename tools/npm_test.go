package tools

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmServer returns the path of an installed npm MCP server's entry point
// (scripts/install-mcp-servers.sh), skipping the test without it unless
// BENCH_REQUIRE_MCP=1.
func npmServer(t *testing.T, pkg string) string {
	t.Helper()
	path, _ := filepath.Abs(filepath.Join("..", "scripts", "mcp-servers", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	_, err := os.Stat(path)
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		msg := "the npm MCP servers need node and scripts/install-mcp-servers.sh: " + err.Error()
		if os.Getenv("BENCH_REQUIRE_MCP") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// TestServerEverythingStdio: get-sum, echo, an image described in one
// line, and get-env without the run's key.
func TestServerEverythingStdio(t *testing.T) {
	path := npmServer(t, "server-everything")
	t.Setenv("OPENAI_API_KEY", "sk-everything-must-not-see")
	set, got := connect(t, []Server{{Name: "everything", Command: "node", Args: []string{path, "stdio"}}})
	if !strings.Contains(got[0].Reported, "everything") {
		t.Errorf("reported %q", got[0].Reported)
	}
	h := set.ForItem(nil, CacheOff, 1, 0)
	if res := call(t, h, "get-sum", `{"a": 2, "b": 40}`); res.Refused || !strings.Contains(res.Observation, "42") {
		t.Errorf("get-sum: %+v", res)
	}
	if res := call(t, h, "echo", `{"message": "hi there"}`); res.Refused || !strings.Contains(res.Observation, "hi there") {
		t.Errorf("echo: %+v", res)
	}
	if res := call(t, h, "get-tiny-image", `{}`); res.Refused || !strings.Contains(res.Observation, "[image image/png, ") {
		t.Errorf("get-tiny-image: %+v", res)
	}
	res := call(t, h, "get-env", `{}`)
	if res.Refused || !strings.Contains(res.Observation, "PATH") || strings.Contains(res.Observation, "sk-everything-must-not-see") {
		t.Errorf("get-env: %+v", res)
	}
	if res := call(t, h, "get-sum", `{"a": "two"}`); !res.Refused || res.Call.Error == "" {
		t.Errorf("get-sum with bad arguments: %+v", res)
	}
}

// TestServerEverythingHTTP: the same server in its streamableHttp mode on
// a loopback port.
func TestServerEverythingHTTP(t *testing.T) {
	path := npmServer(t, "server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", path, "streamableHttp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), fmt.Sprintf("PORT=%d", port)}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var set *Set
	for deadline := time.Now().Add(30 * time.Second); ; {
		set, _, err = Connect(context.Background(), []Server{{Name: "everything", URL: url}}, nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything over HTTP: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	defer set.Close()
	if res := call(t, set.ForItem(nil, CacheOff, 1, 0), "get-sum", `{"a": 7, "b": 35}`); res.Refused || !strings.Contains(res.Observation, "42") {
		t.Errorf("get-sum: %+v", res)
	}
}

// TestServerFilesystem reads and lists a temporary folder, and is refused
// outside it.
func TestServerFilesystem(t *testing.T) {
	path := npmServer(t, "server-filesystem")
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, _ := connect(t, []Server{{Name: "fs", Command: "node", Args: []string{path, dir}}})
	h := set.ForItem(nil, CacheOff, 1, 0)
	if res := call(t, h, "read_text_file", fmt.Sprintf(`{"path": %q}`, filepath.Join(dir, "note.txt"))); res.Refused || !strings.Contains(res.Observation, "the answer is 42") {
		t.Errorf("read_text_file: %+v", res)
	}
	if res := call(t, h, "list_directory", fmt.Sprintf(`{"path": %q}`, dir)); res.Refused || !strings.Contains(res.Observation, "note.txt") {
		t.Errorf("list_directory: %+v", res)
	}
	if res := call(t, h, "read_text_file", `{"path": "/etc/passwd"}`); !res.Refused {
		t.Errorf("read outside the folder: %+v", res)
	}
}
