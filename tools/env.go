package tools

import (
	"maps"
	"slices"
	"strings"
)

// passed are the only variables of bench's environment a server inherits.
var passed = []string{"PATH", "HOME", "LANG", "TMPDIR"}

// Secret reports whether a variable's name looks like a credential's.
func Secret(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasPrefix(n, "AWS_")
}

// environ is a started server's environment: PATH, HOME, LANG and TMPDIR
// from bench's own (never a key), then the variables its configuration
// names. A configured credential recorded without its value (Recorded) is
// taken from bench's environment under the same name: the user named it
// for this server.
func environ(s Server, getenv func(string) string) []string {
	env := map[string]string{}
	for _, k := range passed {
		if v := getenv(k); v != "" {
			env[k] = v
		}
	}
	for k, v := range s.Env {
		if v == "" && Secret(k) {
			v = getenv(k)
		}
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// Recorded is the server as a run stores it: the values of variables
// named like credentials left out.
func (s Server) Recorded() Server {
	if len(s.Env) == 0 {
		return s
	}
	env := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		if Secret(k) {
			v = ""
		}
		env[k] = v
	}
	s.Env = env
	return s
}
