package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenExistingAndReadOnlyNeverCreate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "missing.db")
	for name, open := range map[string]func(context.Context, string) (*Store, error){
		"existing": OpenExisting, "readonly": OpenReadOnly,
	} {
		_, err := open(ctx, path)
		if !errors.Is(err, ErrNoDatabase) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s on a missing file: err = %v, want ErrNoDatabase naming the path", name, err)
		}
		if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
			t.Fatalf("%s created %s", name, path)
		}
	}
}

func TestOpenReadOnlyRefusesWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.DB().ExecContext(ctx, `INSERT INTO prompts (hash, name, text) VALUES ('h', 'n', 't')`); err == nil {
		t.Fatal("a write through OpenReadOnly succeeded")
	}
	var n int
	if err := ro.DB().QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("read through OpenReadOnly: n=%d err=%v", n, err)
	}
}

func TestOpenReadOnlySchemaMismatch(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		version int
		want    string
	}{
		{"newer", len(migrations) + 1, "newer than this build"},
		{"older", len(migrations) - 1, "older than this build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.db")
			st, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.DB().ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, tc.version)); err != nil {
				t.Fatal(err)
			}
			st.Close()
			if _, err := OpenReadOnly(ctx, path); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
