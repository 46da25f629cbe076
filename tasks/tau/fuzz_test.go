package tau

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/pyval"
)

// changes lists the records a DB holds that differ from the shared data
// (or that the shared data lacks), as json.dumps of each.
func changes(t testing.TB, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := range db.tables {
		tb := &db.tables[i]
		for k, v := range tb.own {
			if b, ok := tb.base.records.Get(k); ok && pyval.Equal(b, v) {
				continue
			}
			s, err := pyval.DumpJSON(v)
			if err != nil {
				s = "unprintable: " + err.Error()
			}
			out[tb.base.name+"/"+k] = s
		}
	}
	return out
}

// checkShared compares the shared parsed data with a parse of its own: no
// tool may have written into it.
func checkShared(t testing.TB, d *Domain) {
	t.Helper()
	fresh, err := load(d.name, d.version)
	if err != nil {
		t.Fatal(err)
	}
	for i, tb := range d.tables {
		if !pyval.Equal(tb.records, fresh.tables[i].records) {
			t.Fatalf("%s@%s: the shared %s data changed", d.name, d.version, tb.name)
		}
	}
}

// fuzzValue builds a JSON-ish value from fuzz bytes, from a pool of values
// the tools meet (ids of the data, numbers of every kind, containers).
type fuzzSource struct {
	data []byte
	pool []pyval.Value
}

func (f *fuzzSource) byte() byte {
	if len(f.data) == 0 {
		return 0
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b
}

func (f *fuzzSource) value(depth int) pyval.Value {
	switch k := f.byte(); {
	case k < 150 || depth > 3:
		return pyval.Clone(f.pool[int(f.byte())%len(f.pool)])
	case k < 200:
		l := pyval.NewList()
		for n := int(f.byte() % 4); n > 0; n-- {
			l.Items = append(l.Items, f.value(depth+1))
		}
		return l
	default:
		d := pyval.NewDict(0)
		keys := []string{"flight_number", "date", "payment_id", "amount", "first_name", "last_name", "dob", "item_id", "x"}
		for n := int(f.byte() % 4); n > 0; n-- {
			d.Set(keys[int(f.byte())%len(keys)], f.value(depth+1))
		}
		return d
	}
}

// mutate damages a template argument dict as the fuzz bytes say.
func (f *fuzzSource) mutate(kw *pyval.Dict) {
	for n := int(f.byte() % 4); n > 0; n-- {
		op := f.byte()
		if kw.Len() == 0 || op < 30 {
			kw.Set([]string{"extra", "data", "amount"}[int(op)%3], f.value(0))
			continue
		}
		k := kw.Key(int(f.byte()) % kw.Len())
		switch {
		case op < 60:
			kw.Delete(k)
		case op < 160:
			kw.Set(k, f.value(0))
		default:
			// Damage inside: an item of a list, a value of a dict.
			switch v := kw.Val(int(f.byte()) % kw.Len()).(type) {
			case *pyval.List:
				if len(v.Items) > 0 {
					v.Items[int(f.byte())%len(v.Items)] = f.value(1)
				}
			case *pyval.Dict:
				if v.Len() > 0 {
					v.Set(v.Key(int(f.byte())%v.Len()), f.value(1))
				}
			}
		}
	}
}

func fuzzPool(d *Domain) []pyval.Value {
	pool := []pyval.Value{nil, true, false, int64(0), int64(1), int64(-1), int64(2), int64(50), int64(1) << 62,
		pyval.NormInt(pyval.BigOf(int64(1)).Lsh(pyval.BigOf(int64(1)), 70)), 1.5, 0.1, math.Copysign(0, -1),
		250.0, 1e300, math.NaN(), math.Inf(1), "", "x", "yes", "no", "économie", pyval.FromRunes([]rune{0xD800}),
		"2024-05-20", "2024-05-1", "5", "+1", "gift_card", pyval.NewList(), pyval.NewDict(0)}
	for _, tb := range d.tables {
		for i := 0; i < tb.records.Len(); i += tb.records.Len()/5 + 1 {
			pool = append(pool, tb.records.Key(i))
		}
	}
	for _, split := range d.splitNames {
		for _, task := range d.splits[split][:5] {
			for _, a := range task.Actions {
				kw, _ := mustDict(a.Kwargs)
				for i := 0; i < kw.Len(); i++ {
					pool = append(pool, kw.Val(i))
				}
			}
		}
	}
	return pool
}

var fuzzCalls atomic.Int64

// FuzzInvoke: any call, any arguments. Never a panic or an internal error;
// the same call on two fresh databases gives the same observation and the
// same writes; a result the tool returned (not an exception it raised)
// that is an error leaves the database as it was, as the reference's
// early returns do; the shared data never changes.
func FuzzInvoke(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{}, []byte(`{"user_id": "mia_li_3668"}`))
	f.Add(uint8(1), uint8(3), []byte{2, 200, 1, 7, 9}, []byte(`{}`))
	f.Add(uint8(2), uint8(10), []byte{1, 140, 3, 170, 1, 1, 4}, []byte(`[1]`))
	f.Add(uint8(3), uint8(12), []byte{3, 100, 0, 5, 200, 3, 1, 2, 3}, []byte(`{"order_id": "#W2378156", "item_ids": NaN}`))
	doms := [4]*Domain{
		mustLoad(f, "airline", VersionHead), mustLoad(f, "retail", VersionHead),
		mustLoad(f, "airline", Version7362a17), mustLoad(f, "retail", Version7362a17),
	}
	pools := [4][]pyval.Value{}
	templates := [4][]Action{}
	for i, d := range doms {
		pools[i] = fuzzPool(d)
		for _, split := range d.splitNames {
			for _, task := range d.splits[split] {
				templates[i] = append(templates[i], task.Actions...)
			}
		}
		for _, tl := range d.tools {
			templates[i] = append(templates[i], Action{Name: tl.Name, Kwargs: json.RawMessage(`{}`)})
		}
	}
	f.Fuzz(func(t *testing.T, which, pick uint8, steer []byte, raw []byte) {
		i := int(which) % 4
		d := doms[i]
		var name string
		var args json.RawMessage
		if which&4 != 0 {
			// Raw bytes as the arguments.
			name = d.tools[int(pick)%len(d.tools)].Name
			args = raw
		} else {
			tmpl := templates[i][int(pick)*7%len(templates[i])]
			kw, _ := mustDict(tmpl.Kwargs)
			(&fuzzSource{data: steer, pool: pools[i]}).mutate(kw)
			s, err := pyval.DumpJSON(kw)
			if err != nil {
				return
			}
			name, args = tmpl.Name, json.RawMessage(s)
		}
		if which&8 != 0 {
			name = "no_such_tool"
		}
		run := func() (string, bool, error, map[string]string) {
			db := d.NewDB()
			v, err := pyval.ParseJSON(args)
			if err != nil {
				obs, err := db.Invoke(name, args)
				return obs, false, err, changes(t, db)
			}
			kw, ok := v.(*pyval.Dict)
			if !ok {
				obs, err := db.Invoke(name, args)
				return obs, false, err, changes(t, db)
			}
			obs, raised, err := db.callDetail(name, kw)
			return obs, raised, err, changes(t, db)
		}
		obs1, raised1, err1, ch1 := run()
		obs2, _, err2, ch2 := run()
		if err1 != nil && strings.Contains(err1.Error(), "internal error") {
			t.Fatalf("%s(%s): %v", name, args, err1)
		}
		if obs1 != obs2 || (err1 == nil) != (err2 == nil) || len(ch1) != len(ch2) {
			t.Fatalf("%s(%s): not deterministic: %q/%v, %q/%v", name, args, obs1, err1, obs2, err2)
		}
		for k, v := range ch1 {
			if ch2[k] != v {
				t.Fatalf("%s(%s): writes differ at %s", name, args, k)
			}
		}
		if err1 != nil && !errors.Is(err1, ErrArguments) && !errors.Is(err1, ErrNoObservation) {
			t.Fatalf("%s(%s): unexpected error %v", name, args, err1)
		}
		returnedError := !raised1 && (strings.HasPrefix(obs1, "Error: ") || strings.HasPrefix(obs1, "Unknown action "))
		if (returnedError || err1 != nil) && len(ch1) > 0 {
			t.Fatalf("%s(%s) = %q but wrote %v", name, args, obs1, ch1)
		}
		if fuzzCalls.Add(1)%200 == 0 {
			checkShared(t, d)
		}
	})
}
