package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fixtureDir holds a database written by the code before compact call
// storage (schema version 8) and that code's output on it; its README says
// how both were made.
const fixtureDir = "../../store/testdata"

// copyFixture copies the version-8 database to a temporary folder, so that
// migrating it leaves the committed file alone.
func copyFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "v8.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "v8.db")
	if err := os.WriteFile(db, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return db
}

// golden reads one of the old build's outputs, gunzipping .gz files.
func golden(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(fixtureDir, "v8", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return string(b)
}

// firstDiff describes where two outputs part, for a readable failure.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %.400s\nwant: %.400s", i+1, gl, wl)
		}
	}
	return "same lines"
}

var exportedVisits = regexp.MustCompile(`,"visits":[0-9]+`)

// TestMigratedDatabaseReportsAsBefore opens a database written before the
// change (which migrates it in place) and checks that report, show and
// export print exactly what the old build printed on it, and that its
// stopped runs resume to the old build's numbers.
func TestMigratedDatabaseReportsAsBefore(t *testing.T) {
	t.Parallel()
	db := copyFixture(t)
	checks := []struct {
		golden string
		args   []string
	}{
		{"report.md", []string{"report", "--last", "20"}},
		{"report.csv", []string{"report", "--last", "20", "--format", "csv"}},
		{"report.json", []string{"report", "--last", "20", "--format", "json"}},
		{"report_by_trial.md", []string{"report", "--last", "20", "--by", "trial"}},
		{"show_1_901.txt", []string{"show", "1", "--item", "901"}},
		{"show_3.txt", []string{"show", "3"}},
		{"show_4_2.txt", []string{"show", "4", "--item", "2"}},
		{"show_5_1.txt", []string{"show", "5", "--item", "1"}},
		{"show_6_900.txt", []string{"show", "6", "--item", "900"}},
		{"show_8_900.txt", []string{"show", "8", "--item", "900"}},
		{"show_9.txt", []string{"show", "9"}},
	}
	for run := 1; run <= 10; run++ {
		checks = append(checks, struct {
			golden string
			args   []string
		}{fmt.Sprintf("export_%d.jsonl.gz", run), []string{"export", fmt.Sprint(run), "--calls"}})
	}
	for _, c := range checks {
		code, out, stderr := cli(t, append(c.args, "--db", db)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		if strings.HasPrefix(c.golden, "export_") {
			// The old build exported no visit counts.
			out = exportedVisits.ReplaceAllString(out, "")
		}
		if want := golden(t, c.golden); !sameAsOld(c.golden, out, want) {
			t.Errorf("%v differs from the old build's %s: %s", c.args, c.golden, firstDiff(out, want))
		}
	}
	prices := filepath.Join(fixtureDir, "v8", "prices.yaml")
	for _, run := range []string{"9", "10"} {
		if code, _, stderr := cli(t, "resume", run, "--db", db, "--max-cost", "10", "--prices", prices); code != 0 {
			t.Fatalf("resume %s: exit %d: %s", run, code, stderr)
		}
	}
	code, out, stderr := cli(t, "report", "--db", db, "--last", "2", "--format", "csv")
	if code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	var noWall []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		noWall = append(noWall, line[:strings.LastIndex(line, ",")])
	}
	if got, want := newIntervalsCSV(strings.Join(noWall, "\n")+"\n", oldCountsToNew(golden(t, "resume.csv"))); got != want {
		t.Errorf("resumed runs differ from the old build's: %s", firstDiff(got, want))
	}
}
