package verify

import (
	"math"
	"testing"
)

func TestAggregate(t *testing.T) {
	s := Scores{0.9, 0.5, 0.8}
	for _, tc := range []struct {
		rule string
		want float64
	}{{"last", 0.8}, {"min", 0.5}, {"prod", 0.36}, {"mean", 2.2 / 3}} {
		got, err := Aggregate(tc.rule, s)
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Aggregate(%s) = %v, %v; want %v", tc.rule, got, err, tc.want)
		}
	}
	if _, err := Aggregate("max", s); err == nil {
		t.Error("unknown rule accepted")
	}
	if _, err := Aggregate("last", nil); err == nil {
		t.Error("no scores accepted")
	}
}
