package tau

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/pyval"
)

// materialize is the DB as the reference's data dict.
func materialize(db *DB) *pyval.Dict {
	data := pyval.NewDict(len(db.tables))
	for i := range db.tables {
		t := &db.tables[i]
		keys, vals := t.keysValues()
		d := pyval.NewDict(len(keys))
		for j, k := range keys {
			d.Set(k, vals[j])
		}
		data.Set(t.base.name, d)
	}
	return data
}

// The streamed, checkpointed hash equals consistent_hash of the whole data
// written out, for databases changed at their start, middle and end.
func TestHashMatchesDirect(t *testing.T) {
	for _, dom := range Domains {
		d := mustLoad(t, dom, VersionHead)
		tasks, _ := d.Tasks("test")
		for i, task := range tasks[:12] {
			db := d.NewDB()
			for _, a := range task.Actions {
				if a.Name != RespondAction && a.Name != TerminateTool {
					if _, err := db.Invoke(a.Name, a.Kwargs); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := db.Hash()
			if err != nil {
				t.Fatal(err)
			}
			want, err := pyval.ConsistentHash(materialize(db))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s task %d: Hash %s, direct %s", dom, i, got, want)
			}
		}
		db := d.NewDB()
		got, _ := db.Hash()
		want, _ := pyval.ConsistentHash(materialize(db))
		if got != want {
			t.Errorf("%s unchanged: Hash %s, direct %s", dom, got, want)
		}
	}
	// A change in the first and the last record of a table.
	d := mustLoad(t, "airline", VersionHead)
	db := d.NewDB()
	for _, tb := range []string{"users", "reservations"} {
		table := db.table(tb)
		for _, k := range []string{table.base.sortedKeys[0], table.base.sortedKeys[len(table.base.sortedKeys)-1]} {
			setItem(table.mut(k), "x", int64(1))
		}
	}
	db.table("reservations").set("ZZZZZZ", pyval.NewDict(0))
	db.table("reservations").set("000000", pyval.NewList())
	got, _ := db.Hash()
	want, _ := pyval.ConsistentHash(materialize(db))
	if got != want {
		t.Errorf("edges: Hash %s, direct %s", got, want)
	}
}

// Trials share the parsed data: run episodes and rewards at once (under
// -race this checks that nothing shared is written).
func TestConcurrentTrials(t *testing.T) {
	d := mustLoad(t, "airline", Version7362a17)
	eps := loadLog(t)
	tasks, _ := d.Tasks("test")
	want := make([]float64, len(eps))
	for i, ep := range eps {
		want[i] = ep.Reward
	}
	errs := make(chan error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := d.NewDB()
			var actions []Action
			for _, m := range ep.Traj {
				if m.Role != "assistant" {
					continue
				}
				if len(m.ToolCalls) == 0 {
					actions = append(actions, Respond(*m.Content))
					continue
				}
				fn := m.ToolCalls[0].Function
				a := Action{Name: fn.Name, Kwargs: json.RawMessage(fn.Arguments)}
				actions = append(actions, a)
				if _, err := db.Invoke(a.Name, a.Kwargs); err != nil {
					errs <- err
					return
				}
			}
			r, err := tasks[ep.TaskID].Reward(db, actions)
			if err != nil {
				errs <- err
				return
			}
			if string(ep.Info.RewardInfo) != "null" && r.Reward != want[i] {
				errs <- fmt.Errorf("task %d trial %d: reward %v, logged %v", ep.TaskID, ep.Trial, r.Reward, want[i])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkShared(t, d)
}
