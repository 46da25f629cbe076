package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// snapshot reads every file of dir, by name.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sameFiles(t *testing.T, what string, before, after map[string][]byte) {
	t.Helper()
	for name, b := range after {
		if old, ok := before[name]; !ok {
			t.Errorf("%s created %s", what, name)
		} else if !bytes.Equal(old, b) {
			t.Errorf("%s changed %s", what, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("%s removed %s", what, name)
		}
	}
}

// TestReadOnlyDatabaseIsReadInPlace puts a database in a folder the user
// cannot write (as root, the commands run as nobody, to whom root's
// permissions do not extend) and runs every command that only reads
// results: each works and leaves the folder byte for byte as it was.
func TestReadOnlyDatabaseIsReadInPlace(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	root := t.TempDir()
	dir := filepath.Join(root, "ro")
	db := filepath.Join(dir, "r.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:902"); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	// A test binary nobody may execute, doubling as bench (TestMain).
	bin := filepath.Join(root, "bench.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	dst.Close()
	for _, p := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	before := snapshot(t, dir)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "game24"},
		{[]string{"show", "1"}, "item  900"},
		{[]string{"show", "1", "--item", "901"}, "item 901"},
		{[]string{"list"}, "range 900:902"},
		{[]string{"export", "1"}, `"idx":901`},
		{[]string{"db", "stats"}, "done"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, append(c.args, "--db", db)...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Errorf("%v on a read-only database: %v: %s", c.args, err, errb.String())
			continue
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%v printed %q, want %q in it", c.args, out.String(), c.want)
		}
	}
	sameFiles(t, "reading a read-only database", before, snapshot(t, dir))
}

// TestForeignDatabaseRefusedUnchanged runs every command that takes --db on
// a SQLite file of someone else's and on a half-made one: each exits 2 with
// one line saying it is not a reasonbench database, and the file is byte
// for byte as it was.
func TestForeignDatabaseRefusedUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "other.db")
	conn, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes VALUES (1, 'mine')`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	half := filepath.Join(dir, "half.db") // claims the current schema, lacks its tables
	conn, err = sql.Open("sqlite", half)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(fmt.Sprintf(`CREATE TABLE runs (id INTEGER PRIMARY KEY); PRAGMA user_version = %d`, store.SchemaVersion())); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	before := snapshot(t, dir)
	cmds := [][]string{{"report"}, {"show", "1"}, {"list"}, {"export", "1"}, {"db", "stats"}, {"db", "vacuum"},
		{"rm", "1"}, {"resume", "1"}, {"plot", "--out", filepath.Join(dir, "p.svg")}}
	for _, db := range []string{foreign, half} {
		for _, c := range cmds {
			if db == half && (c[0] == "rm" || c[0] == "resume" || (c[0] == "db" && c[1] == "vacuum")) {
				continue // writers migrate a schema they know; half.db claims the current one
			}
			code, _, stderr := cli(t, append(c, "--db", db)...)
			if code != 2 || !strings.Contains(stderr, "not a") || !strings.Contains(stderr, "reasonbench database") ||
				strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("%v on %s: exit %d, stderr %q; want exit 2 and one line saying it is not a reasonbench database",
					c, filepath.Base(db), code, stderr)
			}
		}
	}
	sameFiles(t, "commands on foreign databases", before, snapshot(t, dir))
}
