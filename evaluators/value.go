// Package evaluators scores the candidate states of a tree search: value
// (each candidate judged independently, n samples mapped to scores and
// summed) and vote (n votes over all candidates at once).
package evaluators

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
)

// Scores maps a judgement word to its value.
type Scores map[string]float64

// DefaultScores are the ToT reference's Game of 24 values.
func DefaultScores() Scores { return Scores{"sure": 20, "likely": 1, "impossible": 0.001} }

// Cache remembers values by evaluation prompt within one item (the run's
// sharing is declared on the requests: Value.Share). It is safe for
// concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]float64
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[string]float64{}} }

func (c *Cache) get(k string) (float64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *Cache) put(k string, v float64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
}

// Stats counts what an evaluation cost.
type Stats struct {
	Calls      int // sampler calls made
	CacheHits  int // candidates answered from the cache
	Duplicates int // candidates identical to an earlier one in the same step
}

// Value judges candidates independently.
type Value struct {
	Sampler     llm.Sampler
	N           int      // samples per candidate
	Temperature *float64 // nil: not sent, the model's default
	Scores      Scores
	// Judge extracts the judgement word from one answer.
	Judge func(output string) string
	// Cache, when set, answers a prompt seen before without a call, and
	// makes a prompt one draw (its call identity is the prompt's).
	// Without it every candidate is its own draw.
	Cache *Cache
	// Share, when set with Cache, declares a prompt's draw shared by the
	// whole run (llm.Request.Share): the ToT reference's value cache lives
	// on its task object, across puzzles. Whichever item asks first, the
	// draw is the same.
	Share string
	// ShareDuplicates gives a candidate identical to an earlier one in the
	// same step the earlier one's value; otherwise it gets 0, as the ToT
	// reference does.
	ShareDuplicates bool
}

// Candidate is one state to judge: its identity and its evaluation prompt.
// Skip means the state is worth 0 without asking.
type Candidate struct {
	State  string
	Prompt string
	Skip   bool
}

// Evaluate returns one value per candidate. Distinct prompts are asked
// concurrently; the result does not depend on their order. site names where
// the evaluation sits in the strategy: an uncached candidate i's call is
// site+"/value/c<i>", a cached prompt's "value/<prompt digest>".
func (v *Value) Evaluate(ctx context.Context, site string, cands []Candidate) ([]float64, Stats, error) {
	values := make([]float64, len(cands))
	var st Stats
	firstOf := map[string]int{} // state → first candidate index
	type job struct {
		prompt, call string
		targets      []int
	}
	var jobs []*job
	byPrompt := map[string]*job{}
	dups := map[int]int{} // later duplicate → first occurrence
	for i, c := range cands {
		if j, dup := firstOf[c.State]; dup {
			st.Duplicates++
			dups[i] = j
			continue
		}
		firstOf[c.State] = i
		if c.Skip {
			continue
		}
		if val, ok := v.Cache.get(c.Prompt); ok {
			values[i] = val
			st.CacheHits++
			continue
		}
		if v.Cache == nil {
			jobs = append(jobs, &job{prompt: c.Prompt, call: joinCall(site, fmt.Sprintf("value/c%d", i)), targets: []int{i}})
			continue
		}
		if j, ok := byPrompt[c.Prompt]; ok {
			j.targets = append(j.targets, i)
			continue
		}
		j := &job{prompt: c.Prompt, call: PromptCall("value", c.Prompt), targets: []int{i}}
		byPrompt[c.Prompt] = j
		jobs = append(jobs, j)
	}
	results := make([]float64, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for k, j := range jobs {
		wg.Go(func() {
			resp, err := v.Sampler.Sample(ctx, llm.Request{
				Messages: []llm.Message{{Role: "user", Content: j.prompt}}, N: v.N,
				Temperature: v.Temperature, Purpose: "value", Call: j.call, Share: v.share(),
			})
			if err != nil {
				errs[k] = err
				return
			}
			total := 0.0
			for _, c := range resp.Choices {
				total += v.Scores[v.Judge(c.Content)]
			}
			results[k] = total
		})
	}
	wg.Wait()
	st.Calls = len(jobs)
	for k, j := range jobs {
		if errs[k] != nil {
			return nil, st, fmt.Errorf("value: %w", errs[k])
		}
		v.Cache.put(j.prompt, results[k])
		for _, i := range j.targets {
			values[i] = results[k]
		}
	}
	if v.ShareDuplicates {
		for i, j := range dups {
			values[i] = values[j]
		}
	}
	return values, st, nil
}

func (v *Value) share() string {
	if v.Cache == nil {
		return ""
	}
	return v.Share
}

// PromptCall is the identity of a call that is one draw per prompt: purpose
// and the prompt's digest.
func PromptCall(purpose, prompt string) string {
	sum := sha256.Sum256([]byte(prompt))
	return purpose + "/" + hex.EncodeToString(sum[:12])
}

func joinCall(site, name string) string {
	if site == "" {
		return name
	}
	return site + "/" + name
}

// Get returns the value cached for a prompt; a nil cache has none.
func (c *Cache) Get(prompt string) (float64, bool) { return c.get(prompt) }

// Put caches a prompt's value; a nil cache ignores it.
func (c *Cache) Put(prompt string, v float64) { c.put(prompt, v) }
