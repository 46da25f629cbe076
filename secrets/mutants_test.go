package secrets

import (
	"strings"
	"testing"
)

// TestRedactEdges: a key of exactly MinLen bytes is replaced and one a
// byte shorter is not; a key read with its line's newline (a key file,
// a variable set from one) is known by its bare value.
func TestRedactEdges(t *testing.T) {
	var s Set
	min := strings.Repeat("k", MinLen)
	short := strings.Repeat("s", MinLen-1)
	s.Add(min, short, "sk-FROM-FILE-42\n", "  \tsk-SPACED-7 \r\n")
	for _, c := range []struct{ in, want string }{
		{"a " + min + " b", "a " + Marker + " b"},
		{"a " + short + " b", "a " + short + " b"},
		{"Bearer sk-FROM-FILE-42 refused", "Bearer " + Marker + " refused"},
		{"x=sk-SPACED-7;", "x=" + Marker + ";"},
	} {
		if got := s.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !s.Holds("sk-FROM-FILE-42") || !s.Holds("x "+min+" y") {
		t.Error("Holds misses a key read with a newline, or one of MinLen bytes inside a value")
	}
	env := s.Environ([]string{"A=sk-FROM-FILE-42", "B=x" + min, "D=ok"})
	if strings.Join(env, " ") != "D=ok" {
		t.Errorf("Environ = %q", env)
	}
}

// TestNamedLikeKeyCredentials: every credential word counts, in any case
// and anywhere in the name (GOOGLE_APPLICATION_CREDENTIALS is a key's
// file, and a variable named for auth carries one).
func TestNamedLikeKeyCredentials(t *testing.T) {
	for _, name := range []string{"GOOGLE_APPLICATION_CREDENTIALS", "my_credential", "DB_PASSWD", "PROXY_AUTH",
		"Authorization", "HF_TOKEN", "X_SECRET_Y", "aws_region", "api_key"} {
		if !NamedLikeKey(name) {
			t.Errorf("NamedLikeKey(%s) = false", name)
		}
	}
	for _, name := range []string{"PATH", "CREDIT", "PASS", "TOKE", "SECRE", "HOME", "XAWS_Y"} {
		if NamedLikeKey(name) {
			t.Errorf("NamedLikeKey(%s) = true", name)
		}
	}
}
