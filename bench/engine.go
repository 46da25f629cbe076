// The engine, in files by job: plan.go (a configuration made a checked plan),
// plankey.go (what identifies a run: draw scope, config key, recorded spec),
// backends.go (clients, endpoints, the sandbox and the judge's backend),
// run.go (Run, experiments, the item loop), resume.go (Resume) and item.go
// (one item: its sampler stack, solve and store).

package bench

import (
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/store"
)

// Progress is reported after every finished item.
type Progress struct {
	Done, Total      int
	Accuracy         float64 // mean over the items done
	PromptTokens     int
	CompletionTokens int
	Calls            int
	Elapsed          time.Duration
	Limit            int // current adaptive concurrency limit (--concurrency auto); 0 otherwise
	// Replicas are the calls each replica served so far (several
	// --base-url); nil otherwise.
	Replicas []llm.ReplicaStat
}

// Engine runs configurations against a store.
type Engine struct {
	Store *store.Store
	// Backend, when set, replaces the sampler the config would build (tests
	// use it to inject scripted samplers).
	Backend llm.Sampler
	// OnProgress, when set, is called after every item (from one goroutine
	// at a time).
	OnProgress func(Progress)
	// Sandbox, when set, replaces the bubblewrap sandbox a run that
	// executes programs would start (tests inject failing runners).
	Sandbox sandbox.Runner

	// Force takes over a run that another process holds (bench resume
	// --force): for a holder known to be gone before its heartbeat is
	// stale. The other process, if it still lives, stops at its next
	// heartbeat.
	Force bool
	// LeaseBeat and LeaseStale override how often a run's lease is renewed
	// (5 s) and how old a renewal makes its holder gone (30 s).
	LeaseBeat, LeaseStale time.Duration
	// identity, when set, stands for this process as a lease holder (tests
	// play other processes).
	identity store.Holder
}
