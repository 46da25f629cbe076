package main

import (
	"strings"
	"testing"
	"time"
)

func TestPrinter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events string
		want   []string // lines, in order, each a substring of its line
		not    []string // never printed
		failed int
	}{
		{
			name: "packages print as they finish, with the slowest test",
			events: `{"Action":"start","Package":"m/slow"}
{"Action":"start","Package":"m/fast"}
{"Action":"output","Package":"m/fast","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"m/fast","Test":"TestA","Elapsed":0.1}
{"Action":"pass","Package":"m/fast","Elapsed":0.2}
{"Action":"pass","Package":"m/slow","Test":"TestBig/sub","Elapsed":9}
{"Action":"pass","Package":"m/slow","Test":"TestBig","Elapsed":9.5}
{"Action":"pass","Package":"m/slow","Test":"TestSmall","Elapsed":1.5}
{"Action":"pass","Package":"m/slow","Elapsed":11.25}
{"Action":"output","Package":"m/none","Output":"?   \tm/none\t[no test files]\n"}
{"Action":"skip","Package":"m/none","Elapsed":0}
`,
			want: []string{"ok   m/fast 0.2s", "ok   m/slow 11.2s  (slowest TestBig 9.5s)", "?    m/none [no test files]",
				"2 packages passed, 0 failed, 1 without tests", "tests: 4 passed, 0 failed, 0 skipped"},
			not: []string{"=== RUN", "slowest TestA"},
		},
		{
			name: "a failing package prints its output, a build error its compiler output",
			events: `{"Action":"output","Package":"m/bad","Test":"TestX","Output":"    x_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"m/bad","Test":"TestX","Elapsed":0.5}
{"Action":"fail","Package":"m/bad","Elapsed":0.6}
{"ImportPath":"m/broken [m/broken.test]","Action":"build-output","Output":"broken/a.go:3:1: syntax error\n"}
{"ImportPath":"m/broken [m/broken.test]","Action":"build-fail"}
{"Action":"output","Package":"m/broken","Output":"FAIL\tm/broken [build failed]\n"}
{"Action":"fail","Package":"m/broken","Elapsed":0}
not json: printed as it is
`,
			want: []string{"x_test.go:9: got 1, want 2", "FAIL m/bad 0.6s", "broken/a.go:3:1: syntax error", "[build failed]",
				"FAIL m/broken", "not json: printed as it is", "0 packages passed, 2 failed", "tests: 0 passed, 1 failed, 0 skipped"},
			failed: 2,
		},
		{
			name: "a package cut off (go test killed) is a failure with its output",
			events: `{"Action":"output","Package":"m/hung","Test":"TestWait","Output":"panic: test timed out after 20m0s\n"}
`,
			want:   []string{"panic: test timed out", "FAIL m/hung (did not finish)", "0 packages passed, 1 failed"},
			failed: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			p := newPrinter(&out, time.Now())
			if err := p.read(strings.NewReader(tc.events)); err != nil {
				t.Fatal(err)
			}
			p.summary()
			lines := strings.Split(out.String(), "\n")
			i := 0
			for _, w := range tc.want {
				for i < len(lines) && !strings.Contains(lines[i], w) {
					i++
				}
				if i == len(lines) {
					t.Errorf("no line with %q (in this order) in:\n%s", w, out.String())
					break
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("printed %q:\n%s", n, out.String())
				}
			}
			if p.failed != tc.failed {
				t.Errorf("%d failed, want %d", p.failed, tc.failed)
			}
		})
	}
}
