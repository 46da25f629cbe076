package bench

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// checkReadings reads every item of a run through its strategy's declared
// readers (reading.Reading), as results/ and view/ will: each reader
// the registry line declares reads every item that finished, and samples
// agree with the item's own figures (sample_accuracy is their share
// right, best_of_k whether any is). TestEverySampleIsASample calls it on
// every probe's first run, so a new strategy's readers are run by
// declaring them.
func checkReadings(t *testing.T, st *store.Store, run int64, strategy string) {
	t.Helper()
	items, err := st.Items(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	read := reading.Of(strategy)
	for _, it := range items {
		if it.Error != "" {
			continue
		}
		if read.Samples != nil {
			s, ok := read.Samples(it.Detail)
			if !ok || len(s.Correct) == 0 || len(s.Keys) != len(s.Correct) || len(s.Answers) != len(s.Correct) || (s.Scores != nil && len(s.Scores) != len(s.Correct)) {
				t.Errorf("item %d: %s's Samples reader read %+v (%v)", it.Index, strategy, s, ok)
				continue
			}
			right := 0
			for _, c := range s.Correct {
				if c {
					right++
				}
			}
			if v, ok := it.Metrics["sample_accuracy"]; ok && math.Abs(v-float64(right)/float64(len(s.Correct))) > 1e-12 {
				t.Errorf("item %d: %d of %d samples read right, sample_accuracy %v", it.Index, right, len(s.Correct), v)
			}
			if v, ok := it.Metrics["best_of_k"]; ok && (v == 1) != (right > 0) {
				t.Errorf("item %d: %d samples read right, best_of_k %v", it.Index, right, v)
			}
		}
		if read.Rounds != nil {
			if _, ok := read.Rounds(it.Detail); !ok {
				t.Errorf("item %d: %s's Rounds reader read no transcript", it.Index, strategy)
			}
		}
		// A program's reader draws the episodes it played; its answer to a
		// question has nothing beyond the item's events (the viewer draws
		// its model calls from those).
		episodes := strategy != "program" || strings.Contains(string(it.Detail), `"trials":[{`)
		if read.View != nil && episodes && read.View(it.Detail) == (reading.ItemView{}) {
			t.Errorf("item %d: %s's View reader draws nothing", it.Index, strategy)
		}
	}
}
