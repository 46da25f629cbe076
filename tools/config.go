// Package tools connects a run to MCP servers (the Model Context Protocol,
// with the official Go SDK) and offers their tools to agents as a
// tasks.ToolHost: servers started as commands over stdio or reached over
// streamable HTTP, listed once at start, every call recorded and cached
// with the item that made it. Serve does the converse: a task's tools as
// an MCP server (bench mcp serve).
package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/reasonbench/reasonbench/secrets"
)

// Server is one MCP server as configured: a command (stdio) or a URL
// (streamable HTTP). The fields after URL are filled when bench connects
// and recorded with the run.
type Server struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"` // values of names like a key are recorded as "" (see Recorded)
	URL     string            `json:"url,omitempty"`
	// Headers are sent with every request to a URL server; their values
	// are credentials (recorded as "").
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout bounds one call (0: DefaultTimeout).
	Timeout time.Duration `json:"timeout,omitempty"`

	// Reported is the name and version the server gave; Digest the
	// SHA-256 of its tool list (names, descriptions, schemas).
	Reported string `json:"reported,omitempty"`
	Digest   string `json:"digest,omitempty"`
	// Withheld marks a recorded server whose credentials the record left
	// out (Recorded): a resume is given the server again.
	Withheld bool `json:"credentials_withheld,omitempty"`
}

// DefaultTimeout bounds a tool call when the configuration names none.
const DefaultTimeout = 60 * time.Second

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// Check validates a server's configuration.
func (s Server) Check() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("mcp server name %q: want 1-40 letters, digits, _ or -", s.Name)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("mcp server %s: give a command or a url", s.Name)
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("mcp server %s: give a command or a url, not both", s.Name)
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			shown, _ := secrets.StripURL(s.URL)
			return fmt.Errorf("mcp server %s: url %q: want http(s)://HOST[:PORT]/PATH", s.Name, secrets.Process.Redact(shown))
		}
	}
	if err := s.checkHeaders(); err != nil {
		return err
	}
	if s.Timeout < 0 {
		return fmt.Errorf("mcp server %s: negative timeout", s.Name)
	}
	return nil
}

// Where is the command line or URL for messages, without the server's
// credentials or a key bench knows.
func (s Server) Where() string {
	if s.URL != "" {
		u, _ := secrets.StripURL(s.URL)
		return secrets.Process.Redact(u)
	}
	_, args := argCredentials(s.Args)
	return secrets.Process.Redact(strings.Join(append([]string{s.Command}, args...), " "))
}

// ParseFlag reads --mcp NAME=COMMAND (split as a shell splits words, with
// quotes) or NAME=http(s)://... .
func ParseFlag(v string) (Server, error) {
	name, rest, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(rest) == "" {
		return Server{}, fmt.Errorf("--mcp %q: want NAME=COMMAND or NAME=http://HOST/PATH", v)
	}
	s := Server{Name: strings.TrimSpace(name)}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") {
		s.URL = rest
	} else {
		words, err := SplitCommand(rest)
		if err != nil {
			return Server{}, fmt.Errorf("--mcp %s: %w", s.Name, err)
		}
		s.Command, s.Args = words[0], words[1:]
	}
	if err := s.Check(); err != nil {
		return Server{}, fmt.Errorf("--mcp: %w", err)
	}
	return s, nil
}

// SplitCommand splits a command line into words: blanks separate, single
// quotes keep everything, double quotes keep all but \" and \\, a
// backslash outside quotes escapes the next character.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			in = true
		case unicode.IsSpace(r):
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote in %q", quote, s)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// ReadConfig reads the mcpServers JSON of Claude Desktop, Cursor and VS
// Code: {"mcpServers": {"NAME": {"command", "args", "env"} or {"url", "headers"}}}
// (VS Code's top-level "servers" too), servers in name order.
func ReadConfig(path string) ([]Server, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--mcp-config: %w", err)
	}
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("--mcp-config %s: not JSON: %v", path, err)
	}
	all := f.MCPServers
	if all == nil {
		all = f.Servers
	}
	if len(all) == 0 {
		return nil, fmt.Errorf(`--mcp-config %s: no servers (want {"mcpServers": {"NAME": {"command": ..., "args": [...]}}})`, path)
	}
	var out []Server
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range all {
			if !yield(k) {
				return
			}
		}
	}) {
		var e struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			Timeout float64           `json:"timeout"` // seconds
		}
		if err := json.Unmarshal(all[name], &e); err != nil {
			return nil, fmt.Errorf("--mcp-config %s: server %s: %v", path, name, err)
		}
		s := Server{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers,
			Timeout: time.Duration(e.Timeout * float64(time.Second))}
		if err := s.Check(); err != nil {
			return nil, fmt.Errorf("--mcp-config %s: %w", path, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// CheckAll validates a list of servers: each, and their names distinct.
func CheckAll(servers []Server) error {
	seen := map[string]bool{}
	for _, s := range servers {
		if err := s.Check(); err != nil {
			return err
		}
		if seen[s.Name] {
			return fmt.Errorf("mcp server %s is configured twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}
