package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reasonbench/reasonbench/tasks"
)

// MetaItem is the _meta key by which a client names the task's item a
// call acts on (bench's own client sends it; the default item is used
// without it).
const MetaItem = "reasonbench/item"

// Served is a task's tools as an MCP server (bench mcp serve): the tools
// of the task's Toolbox but its final one, each item's set fresh and kept
// per session, so that a search then a lookup act on one page, as the
// built-in tools do within a trajectory.
type Served struct {
	Server *mcp.Server
	insts  []tasks.Instance
	box    tasks.Toolbox
	def    int

	mu   sync.Mutex
	sets map[string][]tasks.Tool // session id and item → tool set
}

// Serve declares the tools of box over insts; def is the item of calls
// that name none.
func Serve(name string, box tasks.Toolbox, insts []tasks.Instance, def int) (*Served, error) {
	if len(insts) == 0 || def < 0 || def >= len(insts) {
		return nil, fmt.Errorf("serve %s: item %d is not among its %d items", name, def, len(insts))
	}
	probe, err := box.Tools(insts[def])
	if err != nil {
		return nil, fmt.Errorf("serve %s: %w", name, err)
	}
	s := &Served{Server: mcp.NewServer(&mcp.Implementation{Name: "reasonbench " + name, Version: "1"}, nil),
		insts: insts, box: box, def: def, sets: map[string][]tasks.Tool{}}
	for i, t := range probe {
		if t.Final {
			continue // answering is the agent's, not a tool server's
		}
		s.Server.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Schema()},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return s.call(ctx, req, i)
			})
	}
	return s, nil
}

func (s *Served) call(ctx context.Context, req *mcp.CallToolRequest, tool int) (*mcp.CallToolResult, error) {
	item := s.def
	if v, ok := req.Params.Meta[MetaItem].(float64); ok {
		item = int(v)
	}
	if item < 0 || item >= len(s.insts) {
		return errorResult(fmt.Sprintf("item %d is not among the task's %d items", item, len(s.insts))), nil
	}
	key := fmt.Sprintf("%s/%d", req.Session.ID(), item)
	s.mu.Lock()
	set, ok := s.sets[key]
	if !ok {
		var err error
		if set, err = s.box.Tools(s.insts[item]); err != nil {
			s.mu.Unlock()
			return errorResult(err.Error()), nil
		}
		s.sets[key] = set
	}
	s.mu.Unlock()
	res, err := set[tool].Call(ctx, json.RawMessage(req.Params.Arguments))
	if err != nil {
		return nil, err
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Observation}}}
	out.IsError = res.Refused
	return out, nil
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// Stdio serves on standard input and output until the client closes.
func (s *Served) Stdio(ctx context.Context) error {
	return s.Server.Run(ctx, &mcp.StdioTransport{})
}

// Handler serves over streamable HTTP.
func (s *Served) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.Server }, nil)
}
