package tools

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/secrets"
)

// A server's credentials are every value of its configuration that grants
// access: the values of variables named like a credential (configured, or
// inherited from bench's environment when configured empty), its URL's
// user info and credential-named query parameters, its headers' values,
// and in its arguments the value of a flag or NAME=VALUE named like a
// credential, a header given as an argument (Authorization: Bearer ...)
// and any URL's credentials. Register makes them known (secrets.Process)
// as given to that server alone: redacted from everything bench stores or
// sends elsewhere (a tool's output included), and never given to another
// process.

// owner is the server as the owner of its credentials in secrets.Process.
func (s Server) owner() string { return "mcp server " + s.Name }

// Credentials are the server's credentials; getenv reads bench's
// environment for the ones configured empty.
func (s Server) Credentials(getenv func(string) string) []string {
	creds, _ := argCredentials(s.Args)
	creds = append(creds, secrets.URLCredentials(s.URL)...)
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if v := s.Env[k]; Secret(k) {
			if v == "" {
				v = getenv(k)
			}
			creds = append(creds, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		creds = append(creds, headerCredentials(s.Headers[k])...)
	}
	out := creds[:0]
	for _, c := range creds {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Register adds each server's credentials to secrets.Process as given to
// that server: call it before anything is stored or another endpoint is
// called. Connect registers its servers itself.
func Register(servers []Server, getenv func(string) string) {
	for _, s := range servers {
		secrets.Process.AddFor(s.owner(), s.Credentials(getenv)...)
	}
}

// headerCredentials are a header value's credentials: the whole value,
// and its last word when it names a scheme (Bearer TOKEN).
func headerCredentials(v string) []string {
	v = strings.TrimSpace(v)
	out := []string{v}
	if f := strings.Fields(v); len(f) > 1 {
		out = append(out, f[len(f)-1])
	}
	return out
}

var (
	assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// argCredentials finds the credentials among a command's arguments (see
// above) and returns them with the arguments as a run records them: each
// credential replaced by secrets.Marker, each URL stripped
// (secrets.StripURL).
func argCredentials(args []string) (creds, recorded []string) {
	recorded = slices.Clone(args)
	url := func(v string) (string, bool) {
		if !strings.Contains(v, "://") {
			return v, false
		}
		creds = append(creds, secrets.URLCredentials(v)...)
		stripped, _ := secrets.StripURL(v)
		return stripped, true
	}
	valueNext := false
	for i, a := range args {
		if valueNext {
			valueNext = false
			if u, ok := url(a); ok {
				recorded[i] = u
			} else {
				creds = append(creds, a)
				recorded[i] = secrets.Marker
			}
			continue
		}
		switch body := strings.TrimLeft(a, "-"); {
		case body != a && body != "": // a flag
			name, val, eq := strings.Cut(body, "=")
			prefix := a[:len(a)-len(body)] + name + "="
			switch {
			case !eq && secrets.NamedLikeKey(name):
				valueNext = true
			case !eq:
			case strings.Contains(val, "://"):
				u, _ := url(val)
				recorded[i] = prefix + u
			case secrets.NamedLikeKey(name) && val != "":
				creds = append(creds, val)
				recorded[i] = prefix + secrets.Marker
			}
		case strings.Contains(a, "://"):
			recorded[i], _ = url(a)
		default:
			if name, val, ok := strings.Cut(a, "="); ok && assignRE.MatchString(name) && secrets.NamedLikeKey(name) && val != "" {
				creds = append(creds, val)
				recorded[i] = name + "=" + secrets.Marker
			} else if name, val, ok := strings.Cut(a, ":"); ok && headerRE.MatchString(name) && secrets.NamedLikeKey(name) && strings.TrimSpace(val) != "" {
				creds = append(creds, headerCredentials(val)...)
				recorded[i] = name + ": " + secrets.Marker
			}
		}
	}
	return creds, recorded
}

// foreignKey refuses a server whose arguments, URL or headers hold a key
// not given to it (bench's own, another server's): unlike a variable,
// which environ leaves out, such a value cannot be withheld from the
// server. The message does not quote the key.
func (s Server) foreignKey() error {
	o := s.owner()
	const msg = "holds a key bench knows that was not given to this server (the run's, a judge's, another server's); pass this server's own credential"
	for i, a := range s.Args {
		if secrets.Process.HoldsOthers(o, a) {
			return fmt.Errorf("mcp server %s: argument %d %s", s.Name, i+1, msg)
		}
	}
	if secrets.Process.HoldsOthers(o, s.URL) {
		return fmt.Errorf("mcp server %s: its url %s", s.Name, msg)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if secrets.Process.HoldsOthers(o, s.Headers[k]) {
			return fmt.Errorf("mcp server %s: header %s %s", s.Name, k, msg)
		}
	}
	return nil
}

// checkHeaders validates a URL server's headers.
func (s Server) checkHeaders() error {
	if len(s.Headers) == 0 {
		return nil
	}
	if s.URL == "" {
		return fmt.Errorf("mcp server %s: headers are sent to a server reached by url; give a command server its credentials in env", s.Name)
	}
	for k, v := range s.Headers {
		if !headerRE.MatchString(k) {
			return fmt.Errorf("mcp server %s: header name %q: want letters, digits and -", s.Name, clip(k, 40))
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("mcp server %s: header %s: a value on one line", s.Name, k)
		}
		if protocolHeader(k) {
			return fmt.Errorf("mcp server %s: header %s is the protocol's own; configure credentials and other headers only", s.Name, k)
		}
	}
	return nil
}

// Recorded is the server as a run stores it: its URL stripped, its
// arguments without their credentials (see argCredentials), the values
// of variables named like credentials and of its headers left out, and
// any value holding a key bench knows redacted. Withheld says whether
// something the server was given is not recorded, so that a resume needs
// the server configured again.
func (s Server) Recorded() Server {
	withheld := false
	if s.URL != "" {
		u, changed := secrets.StripURL(s.URL)
		s.URL, withheld = u, changed
	}
	if len(s.Args) > 0 {
		creds, args := argCredentials(s.Args)
		withheld = withheld || len(creds) > 0
		for i, a := range args {
			if r := secrets.Process.Redact(a); r != a {
				args[i], withheld = r, true
			}
		}
		s.Args = args
	}
	if len(s.Env) > 0 {
		env := make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			switch {
			case Secret(k):
				withheld = withheld || v != ""
				v = ""
			case secrets.Process.Holds(v):
				// Given to the server unless environ leaves it out.
				withheld = withheld || !secrets.Process.HoldsOthers(s.owner(), v)
				if v = secrets.Process.Redact(v); secrets.Process.Holds(v) {
					v = ""
				}
			}
			env[k] = v
		}
		s.Env = env
	}
	if len(s.Headers) > 0 {
		h := make(map[string]string, len(s.Headers))
		for k, v := range s.Headers {
			withheld = withheld || v != ""
			h[k] = ""
		}
		s.Headers = h
	}
	s.Withheld = s.Withheld || withheld
	return s
}

// headerTransport adds a server's headers to the requests to its host
// (not to another a redirect leads to).
type headerTransport struct {
	host    string
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host == t.host {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			// Over the Basic authorization of a URL's user info too: the
			// header was configured for this.
			r.Header.Set(k, v)
		}
	}
	return t.next.RoundTrip(r)
}

// protocolHeader reports whether a header is one the transport sets
// itself (MCP's session and version, the body's type and length).
func protocolHeader(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "mcp-") || slices.Contains([]string{"content-type", "content-length", "accept", "host", "last-event-id", "transfer-encoding", "connection"}, n)
}
