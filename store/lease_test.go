package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLeases(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	a := Holder{Host: "h", PID: 1, Token: "a"}
	b := Holder{Host: "h", PID: 2, Token: "b"}
	id, err := st.CreateLeasedRun(ctx, Run{Task: "game24", Strategy: "io"}, a)
	if err != nil {
		t.Fatal(err)
	}
	l, ok, err := st.LeaseOf(ctx, id)
	if err != nil || !ok || l.Holder != a || time.Since(l.Heartbeat) > time.Minute {
		t.Fatalf("a new run's lease: %+v %v %v", l, ok, err)
	}
	refuse := errors.New("held")
	var asked Lease
	if err := st.TakeLease(ctx, id, b, func(cur Lease) error { asked = cur; return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("taking a held lease the holder refuses: %v", err)
	}
	if asked.Holder != a {
		t.Errorf("the refusal was asked about %+v, want the holder a", asked)
	}
	if l, _, _ := st.LeaseOf(ctx, id); l.Holder != a {
		t.Errorf("a refused take changed the lease to %+v", l)
	}
	// The holder itself takes again without asking.
	if err := st.TakeLease(ctx, id, a, func(Lease) error { return refuse }); err != nil {
		t.Errorf("the holder retaking its own lease: %v", err)
	}
	if err := st.RenewLease(ctx, id, "a"); err != nil {
		t.Errorf("renew by the holder: %v", err)
	}
	// b takes over; a's renewals and its finish are refused from then on.
	if err := st.TakeLease(ctx, id, b, func(Lease) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.RenewLease(ctx, id, "a"); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("renew by the old holder: %v, want ErrLeaseLost", err)
	}
	if err := st.FinishLeasedRun(ctx, id, "a", StatusDone, time.Second, ""); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("finish by the old holder: %v, want ErrLeaseLost", err)
	}
	if r, _ := st.GetRun(ctx, id); r.Status != StatusRunning {
		t.Errorf("the old holder's finish changed the status to %s", r.Status)
	}
	if err := st.DropLease(ctx, id, "a"); err != nil {
		t.Fatal(err)
	}
	if l, ok, _ := st.LeaseOf(ctx, id); !ok || l.Holder != b {
		t.Errorf("the old holder's drop removed the new holder's lease: %+v %v", l, ok)
	}
	ls, err := st.Leases(ctx)
	if err != nil || len(ls) != 1 || ls[0].RunID != id {
		t.Errorf("Leases = %+v, %v", ls, err)
	}
	if err := st.FinishLeasedRun(ctx, id, "b", StatusDone, time.Second, ""); err != nil {
		t.Fatal(err)
	}
	if r, _ := st.GetRun(ctx, id); r.Status != StatusDone {
		t.Errorf("status after the holder's finish: %s", r.Status)
	}
	if _, ok, _ := st.LeaseOf(ctx, id); ok {
		t.Error("a finished run keeps its lease")
	}
	// A deleted run takes its lease with it.
	id2, _ := st.CreateLeasedRun(ctx, Run{Task: "game24", Strategy: "io"}, a)
	if _, err := st.DeleteRuns(ctx, []int64{id2}, false, true); err != nil {
		t.Fatal(err)
	}
	if ls, _ := st.Leases(ctx); len(ls) != 0 {
		t.Errorf("leases of deleted runs remain: %+v", ls)
	}
}

// Open refuses a folder and another application's SQLite file, the latter
// without writing to it.
func TestOpenRefusesFolderAndForeignFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("Open(folder): %v", err)
	}
	foreign := filepath.Join(dir, "notes.db")
	conn, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE notes (x)`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	before, _ := os.ReadFile(foreign)
	if _, err := Open(ctx, foreign); err == nil || !strings.Contains(err.Error(), "not a reasonbench database") {
		t.Errorf("Open(foreign): %v", err)
	}
	if after, _ := os.ReadFile(foreign); !bytes.Equal(before, after) {
		t.Error("Open changed the foreign file")
	}
	if _, err := os.Stat(foreign + "-wal"); err == nil {
		t.Error("Open made a WAL beside the foreign file")
	}
}
