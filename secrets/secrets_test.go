package secrets

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	var s Set
	s.Add("sk-CANARY-123", "", "EMPTY", `q"uote<key>`, "sk-CANARY-123-long")
	for _, c := range []struct{ in, want string }{
		{"Bearer sk-CANARY-123 failed", "Bearer " + Marker + " failed"},
		{"sk-CANARY-123sk-CANARY-123", Marker + Marker},
		{"sk-CANARY-123-long", Marker},           // the longer key whole, not its prefix
		{"EMPTY means none", "EMPTY means none"}, // too short to redact
		{"sk-CANARY-12 is not it", "sk-CANARY-12 is not it"},
		{`x q"uote<key> y`, "x " + Marker + " y"},
	} {
		if got := s.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Inside JSON, escaped.
	doc, _ := json.Marshal(map[string]string{"stderr_tail": `key q"uote<key> and sk-CANARY-123`})
	red := s.RedactJSON(doc)
	if strings.Contains(string(red), "CANARY") || strings.Contains(string(red), "uote") || !json.Valid(red) {
		t.Errorf("RedactJSON = %s", red)
	}
	var none *Set
	if none.Redact("sk-CANARY-123") != "sk-CANARY-123" {
		t.Error("a nil set redacted")
	}
}

func TestEnviron(t *testing.T) {
	var s Set
	s.Add("sk-CANARY-123", "abc", "1")
	in := []string{"PATH=/usr/bin", "HOME=/root", "MY_SECRET=1", "DB_PASSWORD=2", "AWS_ACCESS_KEY_ID=3",
		"aws_region=eu", "GITHUB_TOKEN=4", "OPENAI_API_KEY=5", "innocent=sk-CANARY-123", "WRAPPED=x sk-CANARY-123 y",
		"SHORT=abc", "SHORTER=ab", "LANG=C.UTF-8", "http_proxy_auth=z", "MONKEY=1", "SHLVL=1"}
	got := s.Environ(in)
	want := []string{"PATH=/usr/bin", "HOME=/root", "SHORTER=ab", "LANG=C.UTF-8", "SHLVL=1"}
	if !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}

func TestNamedLikeKey(t *testing.T) {
	for name, want := range map[string]bool{"MY_SECRET": true, "db_password": true, "AWS_ACCESS_KEY_ID": true,
		"AWS_REGION": true, "HF_TOKEN": true, "api_key": true, "PATH": false, "HOME": false, "LANG": false, "XAWS_Y": false} {
		if NamedLikeKey(name) != want {
			t.Errorf("NamedLikeKey(%s) = %v", name, !want)
		}
	}
}
