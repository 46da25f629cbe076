package main

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/reasonbench/reasonbench/store"
)

func TestCheckViewAddr(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr   string
		public bool
		ok     bool
	}{
		{"127.0.0.1:8090", false, true},
		{"localhost:8090", false, true},
		{"[::1]:8090", false, true},
		{"127.0.0.2:0", false, true},
		{"0.0.0.0:8090", false, false},
		{":8090", false, false},
		{"192.168.1.5:8090", false, false},
		{"0.0.0.0:8090", true, true},
		{"nonsense", true, false},
	}
	for _, c := range cases {
		if err := checkViewAddr(c.addr, c.public); (err == nil) != c.ok {
			t.Errorf("checkViewAddr(%q, public=%v) = %v, want ok=%v", c.addr, c.public, err, c.ok)
		}
	}
}

func TestViewBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "v.db")
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	newer := filepath.Join(dir, "newer.db")
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newer, b, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`PRAGMA user_version = 100000`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"view", "--db", filepath.Join(dir, "missing.db")}, "no database"},
		{[]string{"view", "--db", db, "--addr", "0.0.0.0:8090"}, "--public"},
		{[]string{"view", "--db", db, "--addr", "nope"}, "host:port"},
		{[]string{"view", "--db", newer, "--addr", "127.0.0.1:0"}, "newer than this build"},
	}
	for _, c := range cases {
		code, _, stderr := cli(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("bench %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Errorf("bench view created the missing database: %v", err)
	}
}
