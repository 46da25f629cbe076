package tools

import (
	"slices"
	"testing"
)

// TestEnvironPassesAndConfigures: a server gets PATH, HOME, LANG and
// TMPDIR from bench's environment and nothing else of it; a configured
// credential without a value is taken from bench's, a configured
// ordinary variable without one stays empty.
func TestEnvironPassesAndConfigures(t *testing.T) {
	bench := map[string]string{"PATH": "/bin", "HOME": "/home/b", "LANG": "C.UTF-8", "TMPDIR": "/scratch",
		"USER": "b", "SHELL": "/bin/sh", "GREETING": "from-bench", "SEARCH_API_KEY": "sk-search-9"}
	srv := Server{Name: "x", Env: map[string]string{"GREETING": "", "SEARCH_API_KEY": "", "MODE": "fast"}}
	got := environ(srv, func(k string) string { return bench[k] })
	want := []string{"GREETING=", "HOME=/home/b", "LANG=C.UTF-8", "MODE=fast", "PATH=/bin", "SEARCH_API_KEY=sk-search-9", "TMPDIR=/scratch"}
	if !slices.Equal(got, want) {
		t.Errorf("environ = %q,\nwant %q", got, want)
	}
	if got := environ(Server{}, func(string) string { return "" }); len(got) != 0 {
		t.Errorf("an empty environment passes %q", got)
	}
}

// TestRecordedBlanksCredentials: what a run stores of a server keeps its
// ordinary variables and none of its credentials' values, configured or
// not, and leaves the server it was given as it was.
func TestRecordedBlanksCredentials(t *testing.T) {
	srv := Server{Name: "x", Command: "srv", Env: map[string]string{"API_TOKEN": "tok-123456", "DB_PASSWORD": "pw-123456",
		"GOOGLE_APPLICATION_CREDENTIALS": "/keys/sa.json", "SEARCH_API_KEY": "", "MODE": "fast"}}
	rec := srv.Recorded()
	for _, k := range []string{"API_TOKEN", "DB_PASSWORD", "GOOGLE_APPLICATION_CREDENTIALS", "SEARCH_API_KEY"} {
		if v, ok := rec.Env[k]; !ok || v != "" {
			t.Errorf("recorded %s = %q (present %v), want it named without its value", k, v, ok)
		}
	}
	if rec.Env["MODE"] != "fast" || rec.Name != "x" || rec.Command != "srv" {
		t.Errorf("recorded %+v", rec)
	}
	if srv.Env["API_TOKEN"] != "tok-123456" {
		t.Error("Recorded changed the server it was given")
	}
}
