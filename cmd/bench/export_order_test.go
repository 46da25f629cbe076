package main

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestExportCallsInIdentityOrder: two identical runs, at concurrency 1 and
// 64, export the same calls in the same order, and the same items whole
// (calls' and events' call numbers too) but for times and latencies.
func TestExportCallsInIdentityOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var exports [][]string
	var items [][]any
	for _, conc := range []string{"1", "64"} {
		db := filepath.Join(dir, conc+".db")
		if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "tot", "--set", "b=2", "--set", "value_cache=off",
			"--range", "900:902", "--concurrency", conc); code != 0 {
			t.Fatal(stderr)
		}
		code, stdout, stderr := cli(t, "export", "--db", db, "1", "--calls")
		if code != 0 {
			t.Fatal(stderr)
		}
		var calls []string
		var whole []any
		sc := bufio.NewScanner(strings.NewReader(stdout))
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var it struct {
				Calls []struct {
					Request, Response json.RawMessage
				} `json:"calls"`
			}
			if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
				t.Fatal(err)
			}
			for _, c := range it.Calls {
				var req struct{ Call string }
				if err := json.Unmarshal(c.Request, &req); err != nil {
					t.Fatal(err)
				}
				calls = append(calls, req.Call+" "+string(c.Response))
			}
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if _, header := line["run"].(map[string]any); !header { // the header names its concurrency
				whole = append(whole, withoutTimes(line))
			}
		}
		items = append(items, whole)
		if len(calls) < 20 {
			t.Fatalf("only %d calls exported", len(calls))
		}
		exports = append(exports, calls)
	}
	if !reflect.DeepEqual(exports[0], exports[1]) {
		for i := range min(len(exports[0]), len(exports[1])) {
			if exports[0][i] != exports[1][i] {
				t.Fatalf("call %d differs between concurrency 1 and 64:\n%.120s\n%.120s", i, exports[0][i], exports[1][i])
			}
		}
		t.Fatalf("exports differ in length: %d vs %d", len(exports[0]), len(exports[1]))
	}
	if len(items[0]) != 2 || !reflect.DeepEqual(items[0], items[1]) {
		a, _ := json.Marshal(items[0])
		b, _ := json.Marshal(items[1])
		t.Fatalf("items exported at concurrency 1 and 64 differ:\n%.2000s\n%.2000s", a, b)
	}
}

// withoutTimes is an exported value without what the clock decides: times
// and latencies.
func withoutTimes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "time", "created_at", "latency_ms", "wall_seconds", "started_at", "finished_at":
				continue
			}
			out[k] = withoutTimes(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutTimes(x)
		}
		return out
	}
	return v
}
