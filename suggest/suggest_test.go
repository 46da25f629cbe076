package suggest

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	cmds := []string{"run", "report", "resume", "list", "show", "merge", "compare"}
	tasks := []string{"game24", "hotpotqa", "gsm8k", "tau-airline", "tau-retail"}
	cases := []struct {
		name       string
		candidates []string
		want       string
	}{
		{"repor", cmds, "report"},
		{"reprot", cmds, "report"},
		{"RUN", cmds, "run"},
		{"xyzzy", cmds, ""},
		{"game42", tasks, "game24"},
		{"tau-airlines", tasks, "tau-airline"},
		{"gsm8", tasks, "gsm8k"},
		{"chess", tasks, ""},
		{"", tasks, ""},
	}
	for _, tc := range cases {
		if got := Nearest(tc.name, tc.candidates); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"rnage", "range", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"same", "same", 0}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
