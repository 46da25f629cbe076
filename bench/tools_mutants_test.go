package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
	"github.com/reasonbench/reasonbench/tools"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// TestStoredSpecHoldsNoMCPCredential: a run with an MCP server whose
// configuration sets a credential stores the variable's name, not its
// value; an ordinary variable keeps its value.
func TestStoredSpecHoldsNoMCPCredential(t *testing.T) {
	t.Parallel()
	const cred = "mcp-credential-value-4e1b"
	_, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "hotpotqa", "react", "0:1"
	cfg.Params = map[string]any{"protocol": "tools"}
	cfg.MCP = []tools.Server{{Name: "x", URL: ts.URL, Env: map[string]string{"SEARCH_API_KEY": cred, "MODE": "fast"}}}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.GetRun(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Spec), cred) {
		t.Errorf("the stored spec holds the server's credential: %s", r.Spec)
	}
	var spec struct {
		Config struct{ MCP []tools.Server } `json:"config"`
	}
	if err := json.Unmarshal(r.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	if m := spec.Config.MCP; len(m) != 1 || m[0].Env["MODE"] != "fast" || m[0].Env["SEARCH_API_KEY"] != "" || len(m[0].Digest) != 64 {
		t.Errorf("recorded servers %+v", m)
	}
	if _, ok := spec.Config.MCP[0].Env["SEARCH_API_KEY"]; !ok {
		t.Errorf("the credential's name is not recorded: %+v", spec.Config.MCP[0].Env)
	}
}

// TestToolsKeyIgnoresTimeout: a server's call timeout is how long bench
// waits, not what the run is: it does not change the configuration key;
// what the server is does.
func TestToolsKeyIgnoresTimeout(t *testing.T) {
	s := tools.Server{Name: "x", URL: "http://127.0.0.1:9/mcp", Digest: strings.Repeat("a", 64)}
	slow := s
	slow.Timeout = 90 * time.Second
	if toolsKey([]tools.Server{s}) != toolsKey([]tools.Server{slow}) {
		t.Error("the MCP timeout changes the configuration key")
	}
	other := s
	other.Digest = strings.Repeat("b", 64)
	if toolsKey([]tools.Server{s}) == toolsKey([]tools.Server{other}) || toolsKey(nil) != "" {
		t.Error("another tool list keeps the key, or no servers give one")
	}
}

// TestServedFinishNeverReplaces: a server's tool named finish, with the
// very description and schema of the task's, is another server's tool
// (offered under its prefix), never the task's finish served: answering
// stays the agent's.
func TestServedFinishNeverReplaces(t *testing.T) {
	t.Parallel()
	task := hotpotqa.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	own, err := task.Tools(insts[0])
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "finisher", Version: "1"}, nil)
	found := false
	for _, b := range own {
		if b.Final {
			found = true
			srv.AddTool(&mcp.Tool{Name: b.Name, Description: b.Description, InputSchema: b.Schema()},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
				})
		}
	}
	if !found {
		t.Fatal("hotpotqa has no final tool")
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "hotpotqa", "react", "0:1"
	cfg.Params = map[string]any{"protocol": "tools"}
	cfg.MCP = []tools.Server{{Name: "x", URL: ts.URL}}
	p, err := load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Engine{}).startTools(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
	defer p.closeTools()
	specs := p.tools.Specs()
	if len(specs) != 1 || specs[0].Name != "x_finish" || specs[0].Replaces != "" {
		for _, s := range specs {
			t.Errorf("the server's finish is offered as %q (replaces %q)", s.Name, s.Replaces)
		}
	}
}
