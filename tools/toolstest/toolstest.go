// Package toolstest holds small MCP servers for tests, well-behaved and
// not: get-sum, echo and get-env as server-everything has them, get-args
// and get-headers (what the server was started with, what a request over
// HTTP carried: a credential given to the server, in a tool's output), and tools
// that fail (an error result), refuse their arguments (a JSON-RPC error),
// crash the server, hang, answer garbage or return 10 MB. Calls counts the
// calls each server answered. A stdio server can fork children that
// outlive it unless killed (ForkEnv) and write the pids of its processes
// to a file (PidsEnv).
package toolstest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a test MCP server and its call count.
type Server struct {
	MCP   *mcp.Server
	calls atomic.Int64
	// garbage, when set, is where the garbage tool writes raw bytes (a
	// stdio server's standard output).
	garbage func()
	// names are the tools New added, in order.
	names []string
}

// Calls counts the tool calls the server received.
func (s *Server) Calls() int64 { return s.calls.Load() }

type sumArgs struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type echoArgs struct {
	Message string `json:"message" jsonschema:"the message to echo"`
}

type none struct{}

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// weather is what get-weather knows; any other city is refused with a
// JSON-RPC error, as weather servers refuse an unknown city.
var weather = map[string]string{"Paris": "sunny, 21 C", "Oslo": "snow, -3 C"}

// UnknownCity is the JSON-RPC error code of get-weather's refusal
// (invalid params).
const UnknownCity = jsonrpc.CodeInvalidParams

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// HangFor is the longest the hang tool holds a call that is never
// cancelled: longer than any test waits for an answer (3 s at most), short
// enough that a test server closes soon (its Close waits for the handler).
const HangFor = 8 * time.Second

// New returns the server; version is what it reports (a changed version
// with a changed description makes another tool digest).
func New(version string) *Server {
	s := &Server{MCP: mcp.NewServer(&mcp.Implementation{Name: "toolstest", Version: version}, nil)}
	count := func() { s.calls.Add(1) }
	add(s, &mcp.Tool{Name: "get-sum", Description: "Returns the sum of two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, a sumArgs) (*mcp.CallToolResult, any, error) {
			count()
			return text(fmt.Sprintf("The sum of %g and %g is %g.", a.A, a.B, a.A+a.B)), nil, nil
		})
	if version != "1.0" { // another version lists another tool set
		add(s, &mcp.Tool{Name: "get-product", Description: "Returns the product of two numbers"},
			func(_ context.Context, _ *mcp.CallToolRequest, a sumArgs) (*mcp.CallToolResult, any, error) {
				count()
				return text(fmt.Sprintf("The product of %g and %g is %g.", a.A, a.B, a.A*a.B)), nil, nil
			})
	}
	add(s, &mcp.Tool{Name: "echo", Description: "Echoes back the input message"},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			count()
			return text("Echo: " + a.Message), nil, nil
		})
	add(s, &mcp.Tool{Name: "get-env", Description: "Returns all environment variables of the server process"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			count()
			env := os.Environ()
			sort.Strings(env)
			return text(strings.Join(env, "\n")), nil, nil
		})
	add(s, &mcp.Tool{Name: "get-args", Description: "Returns the command line of the server process"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			count()
			return text(strings.Join(os.Args, "\n")), nil, nil
		})
	add(s, &mcp.Tool{Name: "get-headers", Description: "Returns the HTTP headers of the request that called it"},
		func(_ context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			count()
			var lines []string
			if req.Extra != nil {
				for k, vs := range req.Extra.Header {
					lines = append(lines, k+": "+strings.Join(vs, ", "))
				}
			}
			sort.Strings(lines)
			return text(strings.Join(lines, "\n")), nil, nil
		})
	add(s, &mcp.Tool{Name: "fail", Description: "Always fails with an error result"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			count()
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "the tool failed on purpose"}}}, nil, nil
		})
	add(s, &mcp.Tool{Name: "get-weather", Description: "Returns the weather in a city"},
		func(_ context.Context, _ *mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, any, error) {
			count()
			w, ok := weather[a.City]
			if !ok {
				return nil, nil, &jsonrpc.Error{Code: UnknownCity, Message: "unknown city: " + a.City}
			}
			return text(a.City + ": " + w), nil, nil
		})
	add(s, &mcp.Tool{Name: "hang", Description: "Never answers"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			count()
			// The client's cancellation can be lost when it drops the
			// session at once (the goodbye races the notice), and the SDK's
			// session close waits for this handler: a hang without an end
			// would hold the test server's Close for ever.
			select {
			case <-ctx.Done():
				time.Sleep(2 * time.Second) // ignores cancellation for a while, longer than tests wait
			case <-time.After(HangFor):
			}
			return nil, nil, errors.New("hung")
		})
	add(s, &mcp.Tool{Name: "big", Description: "Returns 10 MB of text and an image"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			count()
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "BEGIN " + strings.Repeat("x", 10<<20) + " END"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1000)},
			}}, nil, nil
		})
	add(s, &mcp.Tool{Name: "crash", Description: "Kills the server process"},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			count()
			os.Exit(3)
			return nil, nil, nil
		})
	add(s, &mcp.Tool{Name: "garbage", Description: "Answers with bytes that are not JSON-RPC"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			count()
			if s.garbage != nil {
				s.garbage()
				<-ctx.Done()
				return nil, nil, ctx.Err()
			}
			return nil, nil, fmt.Errorf("garbage")
		})
	return s
}

// ServeStdio runs a server on standard input and output until the client
// closes it (a test binary's child mode). With ForkEnv it first starts
// that many children of the same binary, which wait (ChildLife; the first
// ignoring SIGTERM) and hold none of its standard streams, as helpers a
// server forks do; with PidsEnv it appends "server PID" and "child PID"
// lines to that file. A child (ChildEnv set) only waits.
func ServeStdio(version string) error {
	if os.Getenv(ChildEnv) != "" {
		if os.Getenv(ChildEnv) == "stubborn" {
			signal.Ignore(syscall.SIGTERM)
		}
		time.Sleep(ChildLife)
		return nil
	}
	if err := fork(); err != nil {
		return err
	}
	if path := os.Getenv(DumpEnv); path != "" {
		env := os.Environ()
		sort.Strings(env)
		dump := "args:\n" + strings.Join(os.Args, "\n") + "\nenv:\n" + strings.Join(env, "\n") + "\n"
		if err := os.WriteFile(path, []byte(dump), 0o600); err != nil {
			return err
		}
	}
	s := New(version)
	s.keep(os.Getenv(OnlyEnv), os.Getenv(WithoutEnv))
	s.garbage = func() { os.Stdout.WriteString("\x00\x01 this is not JSON {{{\n") }
	return s.MCP.Run(context.Background(), &mcp.StdioTransport{})
}

// OnlyEnv and WithoutEnv narrow a stdio server's tools (comma-separated
// names): a test gives a hanging tool a server and a timeout of its own,
// and the slow but well-behaved tools a generous one.
const (
	OnlyEnv    = "TOOLSTEST_ONLY"
	WithoutEnv = "TOOLSTEST_WITHOUT"
)

// DumpEnv names a file a stdio server writes its command line and
// environment to as it starts: what it was given, whatever a tool's
// output shows of it afterwards.
const DumpEnv = "TOOLSTEST_DUMP"

// ForkEnv is how many children a stdio server forks (ServeStdio); PidsEnv
// the file it lists its processes in; ChildEnv marks a child ("stubborn"
// for one that ignores SIGTERM).
const (
	ForkEnv  = "TOOLSTEST_FORK"
	PidsEnv  = "TOOLSTEST_PIDS"
	ChildEnv = "TOOLSTEST_CHILD"
)

// ChildLife bounds a forked child's wait, so that a test that fails to
// end it leaves no process for long.
const ChildLife = 2 * time.Minute

// fork starts ForkEnv children and lists the server and them in PidsEnv.
func fork() error {
	n, _ := strconv.Atoi(os.Getenv(ForkEnv))
	pids := []string{fmt.Sprintf("server %d", os.Getpid())}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	for i := range n {
		cmd := exec.Command(exe)
		kind := "1"
		if i == 0 {
			kind = "stubborn"
		}
		cmd.Env = append(os.Environ(), ChildEnv+"="+kind)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("fork: %w", err)
		}
		pids = append(pids, fmt.Sprintf("child %d", cmd.Process.Pid))
	}
	if path := os.Getenv(PidsEnv); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := f.WriteString(strings.Join(pids, "\n") + "\n"); err != nil {
			return err
		}
	}
	return nil
}

// add adds a tool to the server and its name to the server's list.
func add[In any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, any]) {
	mcp.AddTool(s.MCP, t, h)
	s.names = append(s.names, t.Name)
}

// keep removes the tools not in only (when it is set) and those in without.
func (s *Server) keep(only, without string) {
	var drop []string
	for _, n := range s.names {
		if (only != "" && !slices.Contains(strings.Split(only, ","), n)) || slices.Contains(strings.Split(without, ","), n) {
			drop = append(drop, n)
		}
	}
	s.MCP.RemoveTools(drop...)
}

// HTTP serves a server over streamable HTTP on a loopback port; the URL
// is its endpoint.
func HTTP(version string) (*Server, *httptest.Server) {
	s := New(version)
	return s, httptest.NewServer(s.Handler())
}

// Handler is the server's streamable HTTP handler.
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, nil)
}
