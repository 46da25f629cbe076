package tools

import (
	"maps"
	"slices"

	"github.com/reasonbench/reasonbench/secrets"
)

// passed are the only variables of bench's environment a server inherits.
var passed = []string{"PATH", "HOME", "LANG", "TMPDIR"}

// Secret reports whether a variable's name looks like a credential's.
func Secret(name string) bool { return secrets.NamedLikeKey(name) }

// environ is a started server's environment: PATH, HOME, LANG and TMPDIR
// from bench's own (never a key), then the variables its configuration
// names, less any holding a key value bench knows (secrets.Process) that
// is not this server's own. A configured credential recorded without its
// value (Recorded) is taken from bench's environment under the same name:
// the user named it for this server.
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
	// No key bench knows (the run's, a judge's, a verifier's, another
	// server's credential) reaches a tool server, whatever name a
	// configuration gives it; its own credentials do (Register).
	for k, v := range env {
		if secrets.Process.HoldsOthers(s.owner(), v) {
			delete(env, k)
		}
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}
