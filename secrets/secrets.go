// Package secrets keeps the key values bench knows (the run's API key, the
// judge's, the verifier's, the named endpoints') so that none of them
// reaches a process bench starts or anything bench stores: Redact replaces
// them in text, Environ drops them (and anything named like a key) from an
// environment.
package secrets

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Marker replaces a key value in redacted text.
const Marker = "[redacted key]"

// MinLen is the shortest value Redact replaces, or finds inside another
// value: shorter "keys" (vLLM's placeholder EMPTY, a test's "x") would
// rewrite ordinary text. Environ drops a variable equal to a key of
// MinEqual bytes or more (a key "1" would take SHLVL=1 with it).
const (
	MinLen   = 6
	MinEqual = 3
)

// Set is a set of key values; the zero value is empty and ready. It is
// safe for concurrent use.
type Set struct {
	mu   sync.RWMutex
	keys []string // longest first, so a key containing another is replaced whole
	// owners are who was given each key: "" bench itself (Add), else
	// the owners AddFor named. A key is held against everyone but its
	// owners (HoldsOthers).
	owners map[string][]string
}

// Process is the set of keys this bench process knows: every command adds
// the keys it reads (flags, variables), and every process it starts and
// every text it stores goes through it.
var Process = &Set{}

// Add records key values bench holds itself (an endpoint's); empty ones
// are ignored.
func (s *Set) Add(keys ...string) { s.AddFor("", keys...) }

// AddFor records key values given to one owner (an MCP server's
// credentials, owner naming the server): redacted like any key, and held
// against every other owner (HoldsOthers), so that no other process is
// given them. Empty values are ignored.
func (s *Set) AddFor(owner string, keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		forms := []string{k}
		// A key's JSON-escaped form (a quote, a backslash, <>&) is how
		// it appears inside a stored JSON document.
		if b, err := json.Marshal(k); err == nil {
			if e := string(b[1 : len(b)-1]); e != k {
				forms = append(forms, e)
			}
		}
		for _, f := range forms {
			if !slices.Contains(s.keys, f) {
				s.keys = append(s.keys, f)
			}
			if s.owners == nil {
				s.owners = map[string][]string{}
			}
			if !slices.Contains(s.owners[f], owner) {
				s.owners[f] = append(s.owners[f], owner)
			}
		}
	}
	slices.SortFunc(s.keys, func(a, b string) int { return len(b) - len(a) })
}

// Len is the number of values known.
func (s *Set) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.keys)
}

// Redact replaces every known key value (of at least MinLen bytes) in
// text with Marker.
func (s *Set) Redact(text string) string {
	if s == nil || text == "" {
		return text
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range s.keys {
		if len(k) >= MinLen && strings.Contains(text, k) {
			text = strings.ReplaceAll(text, k, Marker)
		}
	}
	return text
}

// RedactJSON is Redact for a JSON document; the marker needs no escaping,
// so the result stays valid JSON.
func (s *Set) RedactJSON(doc []byte) []byte {
	if s == nil || len(doc) == 0 {
		return doc
	}
	r := s.Redact(string(doc))
	if r == string(doc) {
		return doc
	}
	return []byte(r)
}

// Holds reports whether value is a known key or contains one.
func (s *Set) Holds(value string) bool {
	return s.holds(value, func(string) bool { return true })
}

// HoldsOthers reports whether value is or contains a known key that was
// not given to owner: bench's own keys (Add) always, another owner's
// (AddFor) unless owner was given it too.
func (s *Set) HoldsOthers(owner, value string) bool {
	return s.holds(value, func(k string) bool {
		by := s.owners[k]
		return owner == "" || slices.Contains(by, "") || !slices.Contains(by, owner)
	})
}

func (s *Set) holds(value string, counts func(key string) bool) bool {
	if s == nil || value == "" {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, k := range s.keys {
		if ((value == k && len(k) >= MinEqual) || (len(k) >= MinLen && strings.Contains(value, k))) && counts(k) {
			return true
		}
	}
	return false
}

// NamedLikeKey reports whether a variable's name looks like a credential's:
// it contains KEY, TOKEN, SECRET, PASSWORD (or PASSWD, CREDENTIAL, AUTH),
// or starts with AWS_, in any case.
func NamedLikeKey(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasPrefix(n, "AWS_")
}

// Environ is base (NAME=VALUE entries) without the variables named like
// a key and those holding a known key value.
func (s *Set) Environ(base []string) []string {
	out := make([]string, 0, len(base))
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if NamedLikeKey(name) || s.Holds(value) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
