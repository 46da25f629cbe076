package view

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// TestHostHeaderChecked: a request naming another host (a page whose name
// was rebound to 127.0.0.1) is refused; the viewer's own names are served.
func TestHostHeaderChecked(t *testing.T) {
	srv, _ := server(t)
	cases := []struct {
		host string
		want int
	}{
		{"", http.StatusOK}, // the test server's own 127.0.0.1:port
		{"localhost:8090", http.StatusOK},
		{"[::1]:8090", http.StatusOK},
		{"evil.example:8090", http.StatusMisdirectedRequest},
		{"127.0.0.1.evil.example", http.StatusMisdirectedRequest},
	}
	for _, c := range cases {
		req, _ := http.NewRequest("GET", srv.URL+"/", nil)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %q: status %d, want %d", c.host, resp.StatusCode, c.want)
		}
	}
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	srv, f := server(t)
	for _, path := range []string{"/", "/runs/" + formatInt(f.runs["cot"]), "/nope", "/assets/style.css"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

func TestAssetsListNoDirectory(t *testing.T) {
	srv, _ := server(t)
	for path, want := range map[string]int{"/assets/": 404, "/assets/app.js": 200} {
		if code, body := get(t, srv.URL+path); code != want || (want == 404 && strings.Contains(body, ">app.js<")) {
			t.Errorf("%s: status %d, want %d (body %.100q)", path, code, want, body)
		}
	}
}

func TestCompareRefusesDuplicatesAndTooManyRuns(t *testing.T) {
	srv, f := server(t)
	id := formatInt(f.runs["cot"])
	many := strings.TrimSuffix(strings.Repeat("1,", 20000), ",")
	var distinct []string
	for i := 1; i <= MaxCompare+1; i++ {
		distinct = append(distinct, formatInt(int64(i)))
	}
	cases := map[string]string{
		"/compare?runs=" + id + "," + id:               "given twice",
		"/compare?runs=" + many:                        "given twice",
		"/compare?runs=" + strings.Join(distinct, ","): "at most",
	}
	for path, want := range cases {
		code, body := get(t, srv.URL+path)
		if code != http.StatusBadRequest || !strings.Contains(body, want) {
			t.Errorf("%.60s: status %d, body lacks %q", path, code, want)
		}
	}
}

// TestExperimentNameWithSlash: an experiment whose name has a slash gets a
// link that works.
func TestExperimentNameWithSlash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateRun(ctx, store.Run{Experiment: "tot/game24", Task: "game24", Strategy: "cot", Model: "sim", Simulated: true, Range: "900:901"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	srv := serveReadOnly(t, path)
	code, body := get(t, srv.URL+"/")
	if code != 200 || !strings.Contains(body, `href="/experiments/tot/game24"`) {
		t.Fatalf("runs page: %d, no link to the experiment", code)
	}
	if code, body := get(t, srv.URL+"/experiments/tot/game24"); code != 200 || !strings.Contains(body, "tot/game24") {
		t.Fatalf("experiment page: %d %.200s", code, body)
	}
}

// serveReadOnly serves the database at path, opened read-only, for the
// test's duration.
func serveReadOnly(t *testing.T, path string) *httptest.Server {
	t.Helper()
	ro, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	h, err := New(ro, cat)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
