package tau

import (
	"encoding/json"
	"testing"
)

// The speed figures of docs/tau-bench.md ("Speed"): GOMAXPROCS=1 go test
// -run XXX -bench . -benchtime 2s -count 3 ./tasks/tau/ (none of this runs
// in parallel).

// BenchmarkNewDB is one trial's database.
func BenchmarkNewDB(b *testing.B) {
	d := mustLoad(b, "airline", Version7362a17)
	for b.Loop() {
		_ = d.NewDB()
	}
}

// BenchmarkInvoke is one tool call on a fresh database: a read and a write.
func BenchmarkInvoke(b *testing.B) {
	d := mustLoad(b, "airline", Version7362a17)
	for _, bc := range []struct{ name, tool, args string }{
		{"get_user_details", "get_user_details", `{"user_id": "mia_li_3668"}`},
		{"search_direct_flight", "search_direct_flight", `{"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}`},
		{"search_onestop_flight", "search_onestop_flight", `{"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}`},
		{"book_reservation", "book_reservation", `{"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", "amount": 5}], "total_baggages": 3, "nonfree_baggages": 0, "insurance": "no"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := d.NewDB().Invoke(bc.tool, json.RawMessage(bc.args)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// episode returns the logged episode's database writes and actions: the
// first rewarded sample episode (task 0, trial 0: a booking).
func episode(b *testing.B, d *Domain) (func() *DB, []Action, Task) {
	eps := loadLog(b)
	ep := eps[0]
	tasks, _ := d.Tasks("test")
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
		actions = append(actions, Action{Name: fn.Name, Kwargs: json.RawMessage(fn.Arguments)})
	}
	run := func() *DB {
		db := d.NewDB()
		for _, a := range actions {
			if a.Name != RespondAction {
				if _, err := db.Invoke(a.Name, a.Kwargs); err != nil {
					b.Fatal(err)
				}
			}
		}
		return db
	}
	return run, actions, tasks[ep.TaskID]
}

// BenchmarkReward is the reward of one airline episode with the ground
// truth cached: one hash of the trial's database.
func BenchmarkReward(b *testing.B) {
	d := mustLoad(b, "airline", Version7362a17)
	run, actions, task := episode(b, d)
	db := run()
	if _, err := task.Reward(db, actions); err != nil { // the cache, and the hash text
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := task.Reward(db, actions); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopyAndReward is a trial's database copy plus its reward: the
// copy, the episode's tool calls (logged task 0 trial 0: 8 calls, two
// bookings), the reward with the ground truth cached.
func BenchmarkCopyAndReward(b *testing.B) {
	d := mustLoad(b, "airline", Version7362a17)
	run, actions, task := episode(b, d)
	if _, err := task.Reward(run(), actions); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := task.Reward(run(), actions); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGroundTruth is one task's ground truth uncached: a fresh
// database, the gold actions, one hash (once per task and process).
func BenchmarkGroundTruth(b *testing.B) {
	d := mustLoad(b, "airline", Version7362a17)
	tasks, _ := d.Tasks("test")
	if _, err := d.NewDB().Hash(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		tasks[0].gt = &gtCell{}
		if _, err := tasks[0].GroundTruthHash(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is parsing a domain's embedded data (once per process).
func BenchmarkLoad(b *testing.B) {
	for _, dom := range Domains {
		b.Run(dom, func(b *testing.B) {
			for b.Loop() {
				if _, err := load(dom, VersionHead); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFirstHash is the first hash in a process: the base records'
// hash text, built once per domain.
func BenchmarkFirstHash(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		d, err := load("airline", VersionHead)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := d.NewDB().Hash(); err != nil {
			b.Fatal(err)
		}
	}
}
