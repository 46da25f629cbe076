package tau

import (
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
