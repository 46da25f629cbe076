package tasks

import (
	"reflect"
	"testing"
)

func TestSelectIsHalfOpen(t *testing.T) {
	var all []Instance
	for i := 0; i < 10; i++ {
		all = append(all, Instance{Index: i})
	}
	idx := func(in []Instance) []int {
		var out []int
		for _, x := range in {
			out = append(out, x.Index)
		}
		return out
	}
	cases := []struct {
		r    Range
		want []int
	}{
		{Range{3, 6}, []int{3, 4, 5}},
		{Range{0, 1}, []int{0}},
		{Range{9, 10}, []int{9}},
		{Range{0, 10}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, c := range cases {
		if got := idx(Select(all, c.r)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Select(%v) = %v, want %v", c.r, got, c.want)
		}
	}
}

func TestParseRange(t *testing.T) {
	cases := []struct {
		s    string
		want Range
		bad  bool
	}{
		{"", Range{0, 20}, false},
		{"3:7", Range{3, 7}, false},
		{":5", Range{0, 5}, false},
		{"15:", Range{15, 20}, false},
		{"5:5", Range{}, true},
		{"0:21", Range{}, true},
		{"7", Range{}, true},
		{"a:3", Range{}, true},
	}
	for _, c := range cases {
		got, err := ParseRange(c.s, 20)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("ParseRange(%q) = %v, %v; want %v (error %v)", c.s, got, err, c.want, c.bad)
		}
	}
}
