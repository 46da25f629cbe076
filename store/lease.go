// Leases: one process works on a run at a time.

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Holder identifies the process that holds a run's lease: enough for
// another process on the same machine to tell whether it still lives
// (host, PID namespace, pid and the process's start time, which a reused
// pid does not share), and a token of its own lease.
type Holder struct {
	Host  string `json:"host"`
	PIDNS string `json:"pidns,omitempty"` // the pid namespace, e.g. pid:[4026531836]
	PID   int    `json:"pid"`
	Start uint64 `json:"start,omitempty"` // the process's start time in clock ticks since boot
	Token string `json:"token"`           // random, one per lease taken
}

// Lease is a run's current holder and when it last said it was alive.
type Lease struct {
	RunID     int64
	Holder    Holder
	Acquired  time.Time
	Heartbeat time.Time
}

// ErrLeaseLost is returned to a process whose lease another process took
// over (bench resume --force): it must stop writing to the run.
var ErrLeaseLost = errors.New("the run's lease was taken over by another process")

// LeaseOf returns the lease of run id, if any process holds one.
func (s *Store) LeaseOf(ctx context.Context, runID int64) (Lease, bool, error) {
	return leaseOf(ctx, s.db, runID)
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func leaseOf(ctx context.Context, q rowQuerier, runID int64) (Lease, bool, error) {
	var holder, acquired string
	var beat int64
	err := q.QueryRowContext(ctx, `SELECT holder, acquired_at, heartbeat_ms FROM leases WHERE run_id = ?`, runID).Scan(&holder, &acquired, &beat)
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, fmt.Errorf("read lease of run %d: %w", runID, err)
	}
	l := Lease{RunID: runID, Heartbeat: time.UnixMilli(beat)}
	if err := json.Unmarshal([]byte(holder), &l.Holder); err != nil {
		return Lease{}, false, fmt.Errorf("read lease of run %d: %w", runID, err)
	}
	l.Acquired, _ = time.Parse(time.RFC3339Nano, acquired)
	return l, true, nil
}

// TakeLease makes h the holder of run id. If another holder has it, may
// decides: nil takes it over (its holder is gone), an error refuses and is
// returned. Reading and taking are one transaction, so of two processes
// taking one run at once exactly one gets it.
func (s *Store) TakeLease(ctx context.Context, runID int64, h Holder, may func(Lease) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("lease run %d: %w", runID, err)
	}
	defer tx.Rollback()
	cur, held, err := leaseOf(ctx, tx, runID)
	if err != nil {
		return err
	}
	if held && cur.Holder.Token != h.Token {
		if err := may(cur); err != nil {
			return err
		}
	}
	if err := putLease(ctx, tx, runID, h); err != nil {
		return err
	}
	return tx.Commit()
}

func putLease(ctx context.Context, tx *sql.Tx, runID int64, h Holder) error {
	b, _ := json.Marshal(h)
	now := time.Now()
	_, err := tx.ExecContext(ctx, `INSERT INTO leases (run_id, holder, acquired_at, heartbeat_ms) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET holder = excluded.holder, acquired_at = excluded.acquired_at, heartbeat_ms = excluded.heartbeat_ms`,
		runID, string(b), now.UTC().Format(time.RFC3339Nano), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("lease run %d: %w", runID, err)
	}
	return nil
}

// RenewLease records that the holder with token is alive. ErrLeaseLost
// means another process holds the run now.
func (s *Store) RenewLease(ctx context.Context, runID int64, token string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE leases SET heartbeat_ms = ? WHERE run_id = ? AND json_extract(holder, '$.token') = ?`,
		time.Now().UnixMilli(), runID, token)
	if err != nil {
		return fmt.Errorf("renew lease of run %d: %w", runID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("run %d: %w", runID, ErrLeaseLost)
	}
	return nil
}

// DropLease gives up the lease with token; a lease held by another token
// is left alone.
func (s *Store) DropLease(ctx context.Context, runID int64, token string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM leases WHERE run_id = ? AND json_extract(holder, '$.token') = ?`, runID, token); err != nil {
		return fmt.Errorf("drop lease of run %d: %w", runID, err)
	}
	return nil
}

// CreateLeasedRun is CreateRun with h holding the new run's lease from the
// start, in one transaction: no other process can take the run between its
// creation and its lease (bench resume --last would otherwise find it).
func (s *Store) CreateLeasedRun(ctx context.Context, r Run, h Holder) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("create run: %w", err)
	}
	defer tx.Rollback()
	id, err := createRun(ctx, tx, r)
	if err != nil {
		return 0, err
	}
	if err := putLease(ctx, tx, id, h); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("create run: %w", err)
	}
	return id, nil
}

// FinishLeasedRun is FinishRun by the holder with token, which gives up the
// lease in the same transaction. A process whose lease was taken over gets
// ErrLeaseLost and changes nothing: the run is another's now.
func (s *Store) FinishLeasedRun(ctx context.Context, id int64, token, status string, wall time.Duration, runErr string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE run_id = ? AND json_extract(holder, '$.token') = ?`, id, token)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("finish run %d: %w", id, ErrLeaseLost)
	}
	if err := finishRun(ctx, tx, id, status, wall, runErr); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	return nil
}

// Leases lists every lease held in the database, by run.
func (s *Store) Leases(ctx context.Context) ([]Lease, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id FROM leases ORDER BY run_id`)
	if err != nil {
		return nil, fmt.Errorf("list leases: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list leases: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list leases: %w", err)
	}
	var out []Lease
	for _, id := range ids {
		l, ok, err := s.LeaseOf(ctx, id)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, l)
		}
	}
	return out, nil
}
