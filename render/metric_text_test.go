package render

import "testing"

func TestMetricTextAndFtoa(t *testing.T) {
	cases := []struct {
		name string
		v    float64
		want string
	}{
		{"trials", 2, "2"},
		{"iterations", 4, "4"},
		{"states", 77.95, "77.95"},
		{"iterations", 2.2500001, "2.25"},
		{"word", 0.43500000000000005, "0.435"},
		{"f1", -0.0000001, "0.000"},
		{"any_correct", 0.5, "0.500"},
	}
	for _, c := range cases {
		if got := MetricText(c.name, c.v); got != c.want {
			t.Errorf("MetricText(%q, %v) = %q, want %q", c.name, c.v, got, c.want)
		}
	}
	for v, want := range map[float64]string{0.43500000000000005: "0.435", 10790: "10790", 1.5e-7: "0.00000015", 3: "3"} {
		if got := ftoa(v); got != want {
			t.Errorf("ftoa(%v) = %q, want %q", v, got, want)
		}
	}
}
