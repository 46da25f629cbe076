package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestExperimentMCPBlock: an experiment file's mcp: block (a command line,
// a URL or a mapping) and tool_cache go to the configurations whose
// strategy acts with tools, and to no other; a bad server is a line error.
func TestExperimentMCPBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	q := write("q.jsonl", `{"question": "What is the sum of 2 and 3?", "answer": "5"}`+"\n")
	exp, err := LoadExperiment(write("e.yaml", `task: file:`+q+`
mcp:
  everything: npx -y "@modelcontextprotocol/server-everything" stdio
  web: http://127.0.0.1:3001/mcp
  files: {command: npx, args: [-y, server-filesystem, /tmp], env: {A: "1"}, timeout_seconds: 5}
tool_cache: "off"
strategies:
  - react: {protocol: [text, tools]}
  - reflexion: {actor: [cot, react]}
  - cot: {}
`), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var with []string
	for _, c := range exp.Runs {
		if len(c.MCP) > 0 {
			with = append(with, c.Strategy+" "+strings.Join(paramsText(c.Params), ","))
			if len(c.MCP) != 3 || c.MCP[0].Args[1] != "@modelcontextprotocol/server-everything" || c.MCP[1].URL == "" || c.MCP[2].Env["A"] != "1" || c.MCP[2].Timeout.Seconds() != 5 {
				t.Errorf("servers: %+v", c.MCP)
			}
		}
		if c.ToolCache != "off" {
			t.Errorf("%s: tool_cache %q", c.Strategy, c.ToolCache)
		}
	}
	if strings.Join(with, "; ") != "react protocol=text; react protocol=tools; reflexion actor=react" {
		t.Errorf("runs with servers: %v", with)
	}
	_, err = LoadExperiment(write("bad.yaml", "task: file:"+q+"\nmcp:\n  x: {command: a, url: http://127.0.0.1/}\nstrategies:\n  - react: {}\n"), DefaultConfig(), 0)
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:3") || !strings.Contains(err.Error(), "not both") {
		t.Errorf("a bad server: %v", err)
	}
}

func paramsText(m map[string]any) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(out)
	return out
}
