package secrets

import "testing"

// TestHoldsOthers: a key added for one owner (an MCP server's credential)
// is redacted like any, held against every other owner, and not against
// its own; a key bench holds itself (Add) is held against every owner,
// even one that was given the same value.
func TestHoldsOthers(t *testing.T) {
	var s Set
	s.Add("sk-RUN-canary-1")
	s.AddFor("mcp:search", "tok-SEARCH-2", "sk-RUN-canary-1", `q"tok-3`)
	s.AddFor("mcp:files", "tok-FILES-4", "tok-SEARCH-2")
	for _, c := range []struct {
		owner, value string
		want         bool
	}{
		{"mcp:search", "tok-SEARCH-2", false},
		{"mcp:search", "Bearer tok-SEARCH-2", false},
		{"mcp:files", "tok-SEARCH-2", false}, // given to both
		{"mcp:search", "tok-FILES-4", true},
		{"mcp:search", "sk-RUN-canary-1", true}, // bench's own, whoever names it
		{"mcp:search", "x tok-SEARCH-2 sk-RUN-canary-1", true},
		{"mcp:other", "tok-SEARCH-2", true},
		{"", "tok-SEARCH-2", true},
		{"mcp:search", "plain", false},
		{"mcp:search", `x q\"tok-3`, false}, // its escaped form is its own too
		{"mcp:files", `x q\"tok-3`, true},
	} {
		if got := s.HoldsOthers(c.owner, c.value); got != c.want {
			t.Errorf("HoldsOthers(%q, %q) = %v, want %v", c.owner, c.value, got, c.want)
		}
	}
	if got := s.Redact("a tok-SEARCH-2 b tok-FILES-4"); got != "a "+Marker+" b "+Marker {
		t.Errorf("owned keys not redacted: %q", got)
	}
	if !s.Holds("tok-FILES-4") {
		t.Error("Holds misses an owned key")
	}
}
