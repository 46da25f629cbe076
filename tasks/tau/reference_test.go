package tau

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/pyval"
)

// The expected values in testdata/gt_hashes.json, tool_cases.json.gz and
// rewards.json.gz are the reference's own Python run on its own code at both
// commits (testdata/gen_reference.py, testdata/gen_rewards.py; the header
// of each says how to run it).

// readPy reads a testdata JSON file with pyval (a Python str may hold a
// lone surrogate, which encoding/json would replace).
func readPy(t testing.TB, name string) *pyval.Dict {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	v, err := pyval.ParseJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*pyval.Dict)
}

func get(v pyval.Value, keys ...string) pyval.Value {
	for _, k := range keys {
		v, _ = v.(*pyval.Dict).Get(k)
	}
	return v
}

// Every task's ground-truth hash, both domains, both versions, every split.
func TestGroundTruthHashes(t *testing.T) {
	hashes := get(readPy(t, "gt_hashes.json"), "hashes").(*pyval.Dict)
	n := 0
	for i := 0; i < hashes.Len(); i++ {
		parts := strings.Split(hashes.Key(i), "/") // version/domain/split
		d := mustLoad(t, parts[1], parts[0])
		tasks, err := d.Tasks(parts[2])
		if err != nil {
			t.Fatal(err)
		}
		want := hashes.Val(i).(*pyval.List).Items
		if len(want) != len(tasks) {
			t.Fatalf("%s: %d hashes for %d tasks", hashes.Key(i), len(want), len(tasks))
		}
		for j, task := range tasks {
			got, err := task.GroundTruthHash()
			if err != nil || got != want[j] {
				t.Errorf("%s task %d: %s, %v; reference %s", hashes.Key(i), j, got, err, want[j])
			}
			n++
		}
	}
	if n != 2*(50+115+500+20) {
		t.Errorf("%d tasks checked", n)
	}
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// matches compares a Go string with an expected entry: {"text": s} or
// {"sha256": hex, "len": n, "head": ...} for long ones.
func matches(got string, want *pyval.Dict) bool {
	if s, ok := want.Get("text"); ok {
		return got == s
	}
	s, _ := want.Get("sha256")
	return digest(got) == s
}

// Tool calls of every tool, curated and randomly damaged, in sequences on
// a fresh database: each observation and the records each sequence left
// changed, as the reference's Env.step gives them.
func TestToolCases(t *testing.T) {
	all := get(readPy(t, "tool_cases.json.gz"), "cases").(*pyval.Dict)
	total, calls, withChanges, errs := 0, 0, 0, 0
	for i := 0; i < all.Len(); i++ {
		version, domain, _ := strings.Cut(all.Key(i), "/")
		d := mustLoad(t, domain, version)
		for ci, c := range all.Val(i).(*pyval.List).Items {
			total++
			db := d.NewDB()
			callList := get(c, "calls").(*pyval.List).Items
			results := get(c, "results").(*pyval.List).Items
			desc := func(k int) string {
				return get(callList[k], "name").(string) + "(" + get(callList[k], "args").(string) + ")"
			}
			for k, r := range results {
				calls++
				name, args := get(callList[k], "name").(string), get(callList[k], "args").(string)
				obs, err := db.Invoke(name, json.RawMessage(args))
				want := r.(*pyval.Dict)
				if raised, ok := want.Get("raised"); ok {
					errs++
					if err == nil {
						t.Errorf("%s case %d: %s = %.200q; the reference raised %v", all.Key(i), ci, desc(k), obs, raised)
					}
					break
				}
				if err != nil || !matches(obs, want) {
					w, _ := want.Get("text")
					if w == nil {
						w, _ = want.Get("head")
					}
					t.Errorf("%s case %d: %s\n got  %.300q (%v)\n want %.300q", all.Key(i), ci, desc(k), obs, err, w)
				}
			}
			wantCh := get(c, "changed").(*pyval.Dict)
			gotCh := changes(t, db)
			if wantCh.Len() > 0 {
				withChanges++
			}
			var keys []string
			for k := range gotCh {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(keys) != wantCh.Len() {
				t.Errorf("%s case %d %s...: changed %v, the reference %v", all.Key(i), ci, desc(0), keys, wantCh.Keys())
				continue
			}
			for _, k := range keys {
				w, ok := wantCh.Get(k)
				if !ok || !matches(gotCh[k], w.(*pyval.Dict)) {
					t.Errorf("%s case %d %s...: record %s\n got  %.300s\n want %.300v", all.Key(i), ci, desc(0), k, gotCh[k], w)
				}
			}
		}
	}
	t.Logf("%d cases, %d calls, %d with changes, %d where the reference's step raised", total, calls, withChanges, errs)
	if total < 3000 || withChanges < 300 {
		t.Errorf("only %d cases, %d with changes", total, withChanges)
	}
	for _, dom := range Domains {
		for _, v := range Versions {
			checkShared(t, mustLoad(t, dom, v))
		}
	}
}

// The reward and reward_info of made-up episodes of every test task, as
// the reference's calculate_reward gives them at each version.
func TestRewardsMatchReference(t *testing.T) {
	all := get(readPy(t, "rewards.json.gz"), "rewards").(*pyval.Dict)
	n := 0
	ones := map[string]int{}
	for i := 0; i < all.Len(); i++ {
		version, domain, _ := strings.Cut(all.Key(i), "/")
		d := mustLoad(t, domain, version)
		tasks, _ := d.Tasks("test")
		for _, row := range all.Val(i).(*pyval.List).Items {
			task := tasks[get(row, "task").(int64)]
			scenario := get(row, "scenario").(string)
			db := d.NewDB()
			var actions []Action
			for _, a := range get(row, "actions").(*pyval.List).Items {
				kw, _ := pyval.DumpJSON(get(a, "kwargs"))
				act := Action{Name: get(a, "name").(string), Kwargs: json.RawMessage(kw)}
				actions = append(actions, act)
				if act.Name != RespondAction {
					if _, err := db.Invoke(act.Name, act.Kwargs); err != nil {
						t.Fatal(err)
					}
				}
			}
			r, err := task.Reward(db, actions)
			if err != nil {
				t.Fatalf("%s task %d %s: %v", all.Key(i), task.Index, scenario, err)
			}
			got, err := r.Info()
			if err != nil {
				t.Fatal(err)
			}
			v, _ := pyval.ParseJSON([]byte(get(row, "reward_info").(string)))
			want, _ := pyval.DumpJSON(v)
			if got != want {
				t.Errorf("%s task %d %s:\n got  %.400s\n want %.400s", all.Key(i), task.Index, scenario, got, want)
			}
			if r.Reward == 1 {
				ones[all.Key(i)+" "+scenario]++
			}
			n++
		}
	}
	t.Logf("%d episodes; reward 1: %v", n, ones)
	if n != 2*4*(50+115) {
		t.Errorf("%d episodes checked", n)
	}
}
