package bench

import (
	"context"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// TestRerunStoresOnlyReferences reruns a ToT run whose every call the cache
// answers: the rerun stores no new text (no blob), one call batch and one
// tree per item, and its calls read back with the same requests and
// responses as the first run's.
func TestRerunStoresOnlyReferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = "game24", "tot", "900:905", map[string]any{"b": 2}
	eng := &Engine{Store: st}
	first, err := eng.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	count := func(table string) int {
		var n int
		if err := st.DB().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	blobs, batches, cache := count("blobs"), count("call_batches"), count("cache")
	second, err := eng.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if second.Calls != first.Calls || second.Accuracy != first.Accuracy {
		t.Fatalf("rerun %+v, first %+v", second, first)
	}
	if saved, _ := st.CacheSavings(ctx, second.RunID); saved.Hits != second.Calls {
		t.Fatalf("%d of %d calls were cache hits", saved.Hits, second.Calls)
	}
	if n := count("blobs"); n != blobs {
		t.Errorf("the rerun stored %d new blobs", n-blobs)
	}
	if n := count("cache"); n != cache {
		t.Errorf("the rerun stored %d cache entries", n-cache)
	}
	if n := count("call_batches") - batches; n != 5 {
		t.Errorf("the rerun stored %d call batches for 5 items", n)
	}
	a, _ := st.Calls(ctx, first.RunID, -1)
	b, _ := st.Calls(ctx, second.RunID, -1)
	if len(a) != len(b) {
		t.Fatalf("%d calls, first run %d", len(b), len(a))
	}
	texts := func(calls []store.Call) map[[2]string]int {
		m := map[[2]string]int{}
		for _, c := range calls {
			m[[2]string{string(c.Request), string(c.Response)}]++
		}
		return m
	}
	if !reflect.DeepEqual(texts(a), texts(b)) {
		t.Error("the rerun's requests and responses differ from the first run's")
	}
	for item := 900; item < 905; item++ {
		na, _ := st.Nodes(ctx, first.RunID, item)
		nb, _ := st.Nodes(ctx, second.RunID, item)
		for i := range na {
			na[i].RunID = second.RunID
		}
		if len(na) == 0 || !reflect.DeepEqual(na, nb) {
			t.Errorf("item %d: trees differ", item)
		}
	}
}
