package tau

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/pyval"
)

// applyGold does a task's gold tool calls on db.
func applyGold(t *testing.T, db *DB, task Task) []Action {
	t.Helper()
	var taken []Action
	for _, a := range task.Actions {
		if a.Name == RespondAction {
			continue
		}
		if _, err := db.Invoke(a.Name, a.Kwargs); err != nil {
			t.Fatal(err)
		}
		taken = append(taken, a)
	}
	return taken
}

// firstWithOutputs returns the first test task with required outputs.
func firstWithOutputs(t *testing.T, d *Domain) Task {
	tasks, _ := d.Tasks("test")
	for _, task := range tasks {
		if len(task.Outputs) > 0 {
			return task
		}
	}
	t.Fatal("no task with outputs")
	return Task{}
}

func TestRewardRules(t *testing.T) {
	for _, tc := range []struct {
		version                 string
		doGold, sayOutputs      bool
		reward                  float64
		checksDB, checksOutputs bool
	}{
		// 7362a17: a task with outputs is scored by its outputs alone.
		{Version7362a17, false, true, 1, false, true},
		{Version7362a17, true, false, 0, false, true},
		// HEAD: the database and the outputs.
		{VersionHead, false, true, 0, true, true},
		{VersionHead, true, false, 0, true, true},
		{VersionHead, true, true, 1, true, true},
	} {
		d := mustLoad(t, "retail", tc.version)
		task := firstWithOutputs(t, d)
		db := d.NewDB()
		var taken []Action
		if tc.doGold {
			taken = applyGold(t, db, task)
		} else {
			// A write the gold actions do not make.
			if _, err := db.Invoke("modify_user_address", json.RawMessage(`{"user_id": "yusuf_rossi_9620", "address1": "x", "address2": "", "city": "y", "state": "z", "country": "USA", "zip": "0"}`)); err != nil {
				t.Fatal(err)
			}
		}
		if tc.sayOutputs {
			// Upper case and thousands separators: the check lowercases
			// and removes commas from what was said.
			var said []string
			for _, o := range task.Outputs {
				said = append(said, strings.ToUpper(o))
			}
			taken = append(taken, Respond("Here: "+strings.Join(said, " and ")+" (1,000,000)"))
		} else {
			taken = append(taken, Respond("Goodbye."))
		}
		r, err := task.Reward(db, taken)
		if err != nil {
			t.Fatal(err)
		}
		if r.Reward != tc.reward || (r.RActions != nil) != tc.checksDB || (r.ROutputs != nil) != tc.checksOutputs {
			t.Errorf("%s gold=%v say=%v: reward %v, r_actions %v, r_outputs %v", tc.version, tc.doGold, tc.sayOutputs, r.Reward, r.RActions, r.ROutputs)
		}
		if len(r.Outputs) != len(task.Outputs) || r.Outputs[0].Found != tc.sayOutputs {
			t.Errorf("%s: outputs %v", tc.version, r.Outputs)
		}
		info, err := r.Info()
		if err != nil || !strings.Contains(info, `"r_outputs": `) || strings.Contains(info, "gt_data_hash") {
			t.Errorf("%s: info %s, %v (a task with outputs reports its outputs)", tc.version, info, err)
		}
	}
}

func TestRewardCommasAndCase(t *testing.T) {
	d := mustLoad(t, "airline", Version7362a17)
	task := firstWithOutputs(t, d) // outputs like "23553"
	out := task.Outputs[0]
	withComma := out[:len(out)-3] + "," + out[len(out)-3:]
	for _, tc := range []struct {
		said  string
		found bool
	}{
		{"The total is " + withComma + " dollars.", true},
		{"The total is " + out, true},
		{"The total is " + out[:len(out)-1], false},
		{"The total is " + out[:2] + " " + out[2:], false},
	} {
		r, err := task.Reward(d.NewDB(), []Action{Respond(tc.said)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outputs[0].Found != tc.found || (r.Reward == 1) != tc.found {
			t.Errorf("%q: found %v, reward %v", tc.said, r.Outputs[0].Found, r.Reward)
		}
	}
}

// A respond action the outputs check reaches must hold a str "content",
// as the reference's check indexes and lowercases it.
func TestRewardBadRespond(t *testing.T) {
	d := mustLoad(t, "airline", Version7362a17)
	task := firstWithOutputs(t, d)
	for _, tc := range []struct{ kwargs, want string }{
		{`{}`, "KeyError: 'content'"},
		{`{"content": null}`, "AttributeError: 'NoneType' object has no attribute 'lower'"},
		{`[1]`, "not an object"},
	} {
		_, err := task.Reward(d.NewDB(), []Action{{Name: RespondAction, Kwargs: json.RawMessage(tc.kwargs)}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("kwargs %s: %v, want %s", tc.kwargs, err, tc.want)
		}
	}
	// Not reached: the output is found in an earlier message.
	r, err := task.Reward(d.NewDB(), []Action{Respond(task.Outputs[0]), {Name: RespondAction, Kwargs: json.RawMessage(`{}`)}})
	if err != nil || r.Reward != 1 {
		t.Errorf("reward %v, %v", r, err)
	}
	// A task without outputs never looks at what was said.
	tasks, _ := d.Tasks("test")
	if _, err := tasks[0].Reward(d.NewDB(), []Action{{Name: RespondAction, Kwargs: json.RawMessage(`{}`)}}); err != nil {
		t.Error(err)
	}
}

// HEAD replays the gold actions through step(), which appends them to the
// actions the outputs are looked for in: a gold respond action's content
// counts there. At 7362a17 a task with outputs replays nothing.
func TestRewardGoldRespondQuirk(t *testing.T) {
	for _, v := range Versions {
		d := mustLoad(t, "retail", v)
		task := firstWithOutputs(t, d)
		task.gt = &gtCell{}
		task.Actions = append(task.Actions, Respond("it is "+task.Outputs[0]))
		db := d.NewDB()
		applyGold(t, db, task)
		r, err := task.Reward(db, []Action{Respond("nothing to say")})
		if err != nil {
			t.Fatal(err)
		}
		want := v == VersionHead
		if r.Outputs[0].Found != want {
			t.Errorf("%s: gold respond counted %v, want %v", v, r.Outputs[0].Found, want)
		}
		for _, a := range r.GoldActions {
			if a.Name == RespondAction {
				t.Errorf("%s: respond among reward_info's actions", v)
			}
		}
	}
}

// The terminate tool is not replayed: a gold list of only a transfer has
// the unchanged data's hash.
func TestRewardSkipsTerminateTool(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	tasks, _ := d.Tasks("test")
	task := tasks[0]
	task.gt = &gtCell{}
	task.Actions = []Action{{Name: TerminateTool, Kwargs: json.RawMessage(`{"summary": "x"}`)}}
	gt, err := task.GroundTruthHash()
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := d.NewDB().Hash()
	if gt != fresh {
		t.Errorf("gt %s, unchanged data %s", gt, fresh)
	}
	r, _ := task.Reward(d.NewDB(), nil)
	if r.Reward != 1 || len(r.GoldActions) != 1 {
		t.Errorf("reward %v, gold %v", r.Reward, r.GoldActions)
	}
}

func TestRewardWrongDomain(t *testing.T) {
	a := mustLoad(t, "airline", VersionHead)
	b := mustLoad(t, "airline", Version7362a17)
	tasks, _ := a.Tasks("test")
	if _, err := tasks[0].Reward(b.NewDB(), nil); err == nil {
		t.Error("a 7362a17 database accepted for a head task")
	}
}

// Output strings that repeat count once, as the reference's dict keys do.
func TestRewardRepeatedOutput(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	task := firstWithOutputs(t, d)
	task.Outputs = []string{"12", "34", "12"}
	r, err := task.Reward(d.NewDB(), []Action{Respond("12")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outputs) != 2 || !r.Outputs[0].Found || r.Outputs[1].Found {
		t.Errorf("outputs %v", r.Outputs)
	}
	info, _ := r.Info()
	if !strings.Contains(info, `"outputs": {"12": true, "34": false}`) {
		t.Errorf("info %s", info)
	}
}

// Invoke's errors: the cases where the reference's episode itself fails.
func TestInvokeErrors(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	for _, tc := range []struct {
		name, args string
		want       error
		obs        string
	}{
		{"get_user_details", `[1]`, ErrArguments, ""},
		{"get_user_details", `{"user_id": "x"`, ErrArguments, ""},
		{"get_user_details", `"x"`, ErrArguments, ""},
		{"respond", `{"content": "hi"}`, ErrRespond, ""},
		{"nope", `{}`, nil, "Unknown action nope"},
		{"nope", `[]`, ErrArguments, ""}, // the arguments are parsed first
		{"get_user_details", `{"user_id": "x", "user_id": "mia_li_3668"}`, nil, `{"name": {"first_name": "Mia"`},
	} {
		obs, err := d.NewDB().Invoke(tc.name, json.RawMessage(tc.args))
		if !errors.Is(err, tc.want) || !strings.HasPrefix(obs, tc.obs) {
			t.Errorf("%s(%s) = %.60q, %v; want %q, %v", tc.name, tc.args, obs, err, tc.obs, tc.want)
		}
	}
	// send_certificate returns None once the three ids are taken.
	db := d.NewDB()
	for i := 0; i < 3; i++ {
		if _, err := db.Invoke("send_certificate", json.RawMessage(`{"user_id": "mia_li_3668", "amount": 1}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Invoke("send_certificate", json.RawMessage(`{"user_id": "mia_li_3668", "amount": 1}`)); !errors.Is(err, ErrNoObservation) {
		t.Errorf("fourth certificate: %v", err)
	}
}

// The observations Python's argument binding gives.
func TestBindingErrors(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	for _, tc := range []struct{ name, args, want string }{
		{"get_user_details", `{}`, "Error: GetUserDetails.invoke() missing 1 required positional argument: 'user_id'"},
		{"get_user_details", `{"user_id": "x", "a'b": 1}`, "Error: GetUserDetails.invoke() got an unexpected keyword argument 'a'b'"},
		{"get_user_details", `{"user_id": "x", "data": 1}`, "Error: tau_bench.envs.airline.tools.get_user_details.GetUserDetails.invoke() got multiple values for keyword argument 'data'"},
		{"update_reservation_baggages", `{"reservation_id": "x", "payment_id": "y"}`, "Error: UpdateReservationBaggages.invoke() missing 2 required positional arguments: 'total_baggages' and 'nonfree_baggages'"},
		{"update_reservation_flights", `{}`, "Error: UpdateReservationFlights.invoke() missing 4 required positional arguments: 'reservation_id', 'cabin', 'flights', and 'payment_id'"},
		{"list_all_airports", `{"x": 1, "y": 2}`, "Error: ListAllAirports.invoke() got an unexpected keyword argument 'x'"},
		{"get_user_details", `{"user_id": ["x"]}`, "Error: unhashable type: 'list'"},
		{"get_user_details", `{"user_id": 5}`, "Error: user not found"},
	} {
		obs, err := d.NewDB().Invoke(tc.name, json.RawMessage(tc.args))
		if err != nil || obs != tc.want {
			t.Errorf("%s(%s) = %q, %v; want %q", tc.name, tc.args, obs, err, tc.want)
		}
	}
}

// json.dumps of a record: key order as in the data, ints and floats apart,
// non-ASCII escaped.
func TestObservationFormat(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	obs, err := d.NewDB().Invoke("get_reservation_details", json.RawMessage(`{"reservation_id": "4WQ150"}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := pyval.ParseJSON([]byte(obs))
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := d.tables[1].records.Get("4WQ150")
	if !pyval.Equal(v, rec) || !strings.HasPrefix(obs, `{"reservation_id": "4WQ150", "user_id": `) {
		t.Errorf("%.200s", obs)
	}
}
