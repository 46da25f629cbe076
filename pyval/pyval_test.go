package pyval

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"
)

// testdata/cases.json is CPython 3.11's own output (testdata/gen_cases.py).
type cases struct {
	Python string `json:"python"`
	Values []struct {
		JSON    string `json:"json"`
		Repr    string `json:"repr"`
		StrHex  string `json:"str_wtf8_hex"`
		Dumps   string `json:"dumps"`
		HashHex string `json:"hashable_wtf8_hex"`
	} `json:"values"`
	Lower []struct {
		In  string `json:"in"`
		Out string `json:"out"`
	} `json:"lower"`
	Errors []struct {
		JSON string `json:"json"`
		Type string `json:"type"`
		Msg  string `json:"msg"`
	} `json:"errors"`
}

func loadCases(t *testing.T) cases {
	t.Helper()
	b, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c cases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Values) < 1000 || len(c.Lower) < 300 || len(c.Errors) < 30 {
		t.Fatalf("fixture has %d values, %d lower, %d errors", len(c.Values), len(c.Lower), len(c.Errors))
	}
	return c
}

func TestTextFormsMatchCPython(t *testing.T) {
	c := loadCases(t)
	for _, tc := range c.Values {
		v, err := ParseJSON([]byte(tc.JSON))
		if err != nil {
			t.Errorf("ParseJSON(%q): %v", tc.JSON, err)
			continue
		}
		if got, err := Repr(v); err != nil || got != tc.Repr {
			t.Errorf("repr(%s) = %q, %v; want %q", tc.JSON, got, err, tc.Repr)
		}
		wantStr, _ := hex.DecodeString(tc.StrHex)
		if got, err := Str(v); err != nil || got != string(wantStr) {
			t.Errorf("str(%s) = %q, %v; want %q", tc.JSON, got, err, wantStr)
		}
		if got, err := DumpJSON(v); err != nil || got != tc.Dumps {
			t.Errorf("json.dumps(%s) = %q, %v; want %q", tc.JSON, got, err, tc.Dumps)
		}
		wantHash, _ := hex.DecodeString(tc.HashHex)
		if got, err := AppendHashable(nil, v); err != nil || string(got) != string(wantHash) {
			t.Errorf("str(to_hashable(%s)) = %q, %v; want %q", tc.JSON, got, err, wantHash)
		}
	}
}

func TestLowerMatchesCPython(t *testing.T) {
	for _, tc := range loadCases(t).Lower {
		if got := Lower(tc.In); got != tc.Out {
			t.Errorf("%q.lower() = %q, want %q", tc.In, got, tc.Out)
		}
	}
}

func TestParseErrorsMatchCPython(t *testing.T) {
	for _, tc := range loadCases(t).Errors {
		_, err := ParseJSON([]byte(tc.JSON))
		e, ok := err.(*Exception)
		if !ok {
			t.Errorf("ParseJSON(%.40q) = %v, want %s", tc.JSON, err, tc.Msg)
			continue
		}
		if e.Type != tc.Type || e.Msg != tc.Msg {
			t.Errorf("ParseJSON(%.40q): %s: %s; want %s: %s", tc.JSON, e.Type, e.Msg, tc.Type, tc.Msg)
		}
	}
}

// The cases the brief names, spelled out so that a reader sees the rules.
func TestReprTable(t *testing.T) {
	tests := []struct {
		v    Value
		want string
	}{
		{"abc", `'abc'`},
		{"it's", `"it's"`},
		{`it's "x"`, `'it\'s "x"'`},
		{`say "hi"`, `'say "hi"'`},
		{"a\\b", `'a\\b'`},
		{"\t\n\r", `'\t\n\r'`},
		{"\x00\x1f\x7f", `'\x00\x1f\x7f'`},
		{"caf\u00e9", "'caf\u00e9'"},
		{"\u00a0", `'\xa0'`},
		{"\u00ad", `'\xad'`},
		{"\u2028", `'\u2028'`},
		{"\U0001F600", "'\U0001F600'"},
		{"\U000E0001", `'\U000e0001'`},
		{FromRunes([]rune{0xD800}), `'\ud800'`},
		{int64(250), "250"},
		{250.0, "250.0"},
		{1e16, "1e+16"},
		{1e15, "1000000000000000.0"},
		{0.0001, "0.0001"},
		{0.00001, "1e-05"},
		{math.Copysign(0, -1), "-0.0"},
		{math.Inf(1), "inf"},
		{math.NaN(), "nan"},
		{1.5e300, "1.5e+300"},
		{true, "True"},
		{nil, "None"},
		{new(big.Int).Lsh(big.NewInt(1), 70), "1180591620717411303424"},
		{NewList(), "[]"},
		{NewList(int64(1), "a", nil), "[1, 'a', None]"},
	}
	for _, tc := range tests {
		if got, err := Repr(tc.v); err != nil || got != tc.want {
			t.Errorf("repr(%#v) = %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
}

func TestHashableTuples(t *testing.T) {
	d := NewDict(2)
	d.Set("b", NewList(int64(1)))
	d.Set("a", NewDict(0))
	one := NewDict(1)
	one.Set("k", 2.0)
	tests := []struct {
		v    Value
		want string
	}{
		{NewList(), "()"},
		{NewList(int64(1)), "(1,)"},
		{NewList(int64(1), int64(2)), "(1, 2)"},
		{d, "(('a', ()), ('b', (1,)))"},
		{one, "(('k', 2.0),)"},
		{NewList(NewList()), "((),)"},
	}
	for _, tc := range tests {
		if got, err := AppendHashable(nil, tc.v); err != nil || string(got) != tc.want {
			t.Errorf("hashable = %s, %v; want %s", got, err, tc.want)
		}
	}
}

func TestIntDigitLimit(t *testing.T) {
	big4300 := new(big.Int).Exp(big.NewInt(10), big.NewInt(4299), nil) // 4300 digits
	if _, err := Repr(NormInt(big4300)); err != nil {
		t.Errorf("4300 digits: %v", err)
	}
	big4301 := new(big.Int).Mul(big4300, big.NewInt(-10))
	_, err := Repr(NormInt(big4301))
	if e, ok := err.(*Exception); !ok || e.Type != "ValueError" || !strings.Contains(e.Msg, "4300 digits") {
		t.Errorf("4301 digits: %v", err)
	}
}

func TestParseKeepsOrderAndKinds(t *testing.T) {
	v, err := ParseJSON([]byte(`{"b": 250, "a": 250.0, "b": [true, null]}`))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Dict)
	if d.Len() != 2 || d.Key(0) != "b" || d.Key(1) != "a" {
		t.Fatalf("keys %v", d.Keys())
	}
	if _, ok := d.Val(1).(float64); !ok {
		t.Errorf("250.0 parsed as %T", d.Val(1))
	}
	if l, ok := d.Val(0).(*List); !ok || len(l.Items) != 2 {
		t.Errorf("repeated key kept %v", d.Val(0))
	}
}

func TestEqual(t *testing.T) {
	two53p1 := NormInt(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 53), big.NewInt(1)))
	a := NewDict(2)
	a.Set("x", int64(1))
	a.Set("y", "z")
	b := NewDict(2)
	b.Set("y", "z")
	b.Set("x", 1.0)
	tests := []struct {
		a, b Value
		want bool
	}{
		{int64(1), 1.0, true},
		{true, int64(1), true},
		{false, 0.0, true},
		{two53p1, float64(1 << 53), false},
		{math.NaN(), math.NaN(), false},
		{"a", "a", true},
		{"1", int64(1), false},
		{nil, nil, true},
		{nil, false, false},
		{NewList(int64(1)), NewList(1.0), true},
		{NewList(int64(1)), NewList(int64(1), int64(2)), false},
		{a, b, true},
		{a, NewDict(0), false},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("%#v == %#v: %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestDictDeleteKeepsOrder(t *testing.T) {
	d := NewDict(0)
	for i := 0; i < 20; i++ {
		d.Set(string(rune('a'+i)), int64(i))
	}
	d.Delete("c")
	d.Set("c", int64(99))
	if d.Len() != 20 || d.Key(2) != "d" || d.Key(19) != "c" {
		t.Fatalf("after delete+set: %v", d.Keys())
	}
	if v, ok := d.Get("t"); !ok || v != int64(19) {
		t.Errorf("index stale: t = %v", v)
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x\u00e9"]}`, `"\ud800"`, `[NaN, -Infinity]`, `1e400`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			if _, ok := err.(*Exception); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		// What json.dumps prints, json.loads reads back to an equal value
		// (NaN aside) that prints the same.
		s, err := DumpJSON(v)
		if err != nil {
			return // an int past the digit limit, as in Python
		}
		w, err := ParseJSON([]byte(s))
		if err != nil {
			t.Fatalf("dumps output %q does not parse: %v", s, err)
		}
		s2, _ := DumpJSON(w)
		if s2 != s {
			t.Fatalf("round trip: %q then %q", s, s2)
		}
		if _, err := AppendHashable(nil, v); err != nil {
			t.Fatal(err)
		}
	})
}

// round(x, 2) as CPython gives it (values from python3.11).
func TestRound(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{2.675, 2.67}, // 2.67499999999999982236431605997495353221893310546875
		{0.125, 0.12}, // a tie: half to even
		{0.375, 0.38},
		{1.005, 1.0},
		{-0.001, math.Copysign(0, -1)},
		{1e300, 1e300},
		{123456.789, 123456.79},
		{math.Inf(-1), math.Inf(-1)},
	} {
		got := Round(tc.x, 2)
		if got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
			t.Errorf("round(%v, 2) = %v, want %v", tc.x, got, tc.want)
		}
	}
}
