// Command testprogress runs `go test -json` with its arguments and prints a
// line per package as the package finishes, with the time since the start
// and the package's slowest test; a failing package's whole output is
// printed before its FAIL line. Plain `go test ./...` prints packages in
// list order, so one slow package holds back every line after it and a
// long suite looks hung (issue 25); the JSON stream arrives as packages
// finish.
//
//	go run ./scripts/testprogress -race -count=1 -timeout 20m -ldflags=-w ./...
//
// It exits with go test's status. $GO names the go command (default go).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testprogress:", err)
		return 2
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testprogress:", err)
		return 2
	}
	p := newPrinter(stdout, start)
	if err := p.read(out); err != nil {
		fmt.Fprintln(stderr, "testprogress: reading go test's output:", err)
	}
	err = cmd.Wait()
	p.summary()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintln(stderr, "testprogress:", err)
		return 2
	case p.failed > 0:
		return 1
	}
	return 0
}

// event is one line of `go test -json` (cmd/test2json), build events
// included.
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output and build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// pkgState is what is kept of a running package: its output, for when it
// fails, and its slowest top-level test.
type pkgState struct {
	output      strings.Builder
	slowest     string
	slowestSecs float64
}

type printer struct {
	w              io.Writer
	start          time.Time
	pkgs           map[string]*pkgState
	passed, failed int
	skipped        int
	// tests counts test results (subtests included) by action.
	tests map[string]int
}

func newPrinter(w io.Writer, start time.Time) *printer {
	return &printer{w: w, start: start, pkgs: map[string]*pkgState{}, tests: map[string]int{}}
}

func (p *printer) state(pkg string) *pkgState {
	s := p.pkgs[pkg]
	if s == nil {
		s = &pkgState{}
		p.pkgs[pkg] = s
	}
	return s
}

// read handles the event stream until it ends. A line that is not an
// event is printed as it is.
func (p *printer) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024) // a test may print long lines
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(p.w, "%s\n", line)
			continue
		}
		p.handle(e)
	}
	return sc.Err()
}

func (p *printer) handle(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(p.w, e.Output) // compiler errors, as go build prints them
		return
	case "build-fail":
		return // the package's own fail event follows
	}
	if e.Package == "" {
		return
	}
	s := p.state(e.Package)
	switch {
	case e.Action == "output":
		s.output.WriteString(e.Output)
	case e.Test != "":
		if e.Action == "pass" || e.Action == "fail" || e.Action == "skip" {
			p.tests[e.Action]++
		}
		if (e.Action == "pass" || e.Action == "fail") && !strings.Contains(e.Test, "/") && e.Elapsed > s.slowestSecs {
			s.slowest, s.slowestSecs = e.Test, e.Elapsed
		}
	case e.Action == "pass":
		p.passed++
		slow := ""
		if s.slowest != "" && s.slowestSecs >= 1 {
			slow = fmt.Sprintf("  (slowest %s %.1fs)", s.slowest, s.slowestSecs)
		}
		p.line("ok  ", e.Package, fmt.Sprintf("%.1fs%s", e.Elapsed, slow))
		delete(p.pkgs, e.Package)
	case e.Action == "skip":
		p.skipped++
		p.line("?   ", e.Package, "[no test files]")
		delete(p.pkgs, e.Package)
	case e.Action == "fail":
		p.failed++
		fmt.Fprint(p.w, s.output.String())
		p.line("FAIL", e.Package, fmt.Sprintf("%.1fs", e.Elapsed))
		delete(p.pkgs, e.Package)
	}
}

// line prints a package's result after the time since the start.
func (p *printer) line(status, pkg, detail string) {
	fmt.Fprintf(p.w, "%7s %s %s %s\n", since(p.start), status, pkg, detail)
}

func (p *printer) summary() {
	// Packages that never ended (go test was killed) are failures too.
	for pkg, s := range p.pkgs {
		if s.output.Len() > 0 {
			fmt.Fprint(p.w, s.output.String())
			p.line("FAIL", pkg, "(did not finish)")
			p.failed++
		}
	}
	fmt.Fprintf(p.w, "%7s %d packages passed, %d failed, %d without tests\n", since(p.start), p.passed, p.failed, p.skipped)
	// The closing line, in the plain form CI logs are read for.
	fmt.Fprintf(p.w, "tests: %d passed, %d failed, %d skipped\n", p.tests["pass"], p.tests["fail"], p.tests["skip"])
}

func since(t time.Time) string {
	d := time.Since(t).Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
