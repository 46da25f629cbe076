package hotpotqa

import (
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
)

var sampleHash = sync.OnceValue(func() string { return tasks.SHA256(sample100) })

// Dataset names the embedded sample (data/hotpot_distractor_sample100.jsonl)
// by its digest.
func (*Task) Dataset() tasks.Dataset {
	qs, _ := loadQuestions()
	return tasks.Dataset{Name: "hotpotqa", SHA256: sampleHash(), Rows: len(qs)}
}

var _ tasks.DataSource = (*Task)(nil)
