package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/verify"
)

// What bon, beam and dvts share: solutions as steps, the step-continuation
// request, verifier scoring and the three selection rules. The methods are
// huggingface/search-and-learn's (src/sal/search/best_of_n.py,
// beam_search.py, diverse_verifier_tree_search.py and the selection in
// src/sal/utils/math.py); where this code decides differently, the
// comment there says so.

// stepSep ends a step: search-and-learn generates one step with stop
// ["\n\n"] and its PRMs split solutions at blank lines.
const stepSep = "\n\n"

// maxSolutionBytes bounds a solution a search keeps growing: a beam whose
// text passes it completes, so a model that writes without end cannot
// exhaust memory (search-and-learn relies on max_tokens per step and
// num_iterations alone).
const maxSolutionBytes = 1 << 16

// stepsTemplate is the template bon, beam and dvts render: instructions
// asking for steps separated by blank lines and a final \boxed{} (or the
// task's own answer line), the problem, and a last line after which the
// solution starts.
const stepsTemplate = "steps"

// splitSteps splits a solution into its steps: the blank-line separated
// blocks, trimmed, without empty ones.
func splitSteps(text string) []string {
	var out []string
	for _, s := range strings.Split(text, stepSep) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// joinSteps writes steps as the solution text.
func joinSteps(steps []string) string { return strings.Join(steps, stepSep) }

// continueExtra are vLLM's chat parameters that make the server continue
// the final (assistant) message instead of opening a new turn.
var continueExtra = map[string]json.RawMessage{
	"continue_final_message": json.RawMessage("true"),
	"add_generation_prompt":  json.RawMessage("false"),
}

// stepRequest asks for the continuation of a partial solution: the user
// turn is the rendered prompt; with steps written, the assistant turn is the
// partial solution (each step followed by the separator, as
// search-and-learn's include_stop_str_in_output leaves it) and the request
// carries continue_final_message. one stops the generation at the end of
// the step; otherwise the model writes to its end (search-and-learn's last
// iteration). On --api completions the client sends the prompt followed by
// the partial solution as one text (llm.OpenAI's completionParams).
func stepRequest(prompt string, steps []string, one bool, n int, temperature *float64, maxTokens int, purpose, call string) llm.Request {
	req := llm.Request{Messages: userPrompt(prompt), N: n, Temperature: temperature, MaxTokens: maxTokens,
		Purpose: purpose, Call: call}
	if len(steps) > 0 {
		req.Messages = append(req.Messages, llm.Message{Role: "assistant", Content: joinSteps(steps) + stepSep})
		req.Extra = continueExtra
	}
	if one {
		req.Stop = []string{stepSep}
	}
	return req
}

// hasFinal says whether a step gives the final answer: a \boxed{} (MATH,
// GSM8K) or a line starting "Answer:" (Game of 24's own format).
func hasFinal(step string) bool {
	if strings.Contains(step, `\boxed`) {
		return true
	}
	for _, l := range strings.Split(step, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "Answer:") {
			return true
		}
	}
	return false
}

// readStep reads one continuation: the steps it adds and whether the
// solution is complete. It completes, as in search-and-learn, when the
// model wrote nothing (an empty step), stopped at the length limit, or —
// where search-and-learn reads vLLM's stop_reason for EOS, which the
// OpenAI API does not carry — when the step gives the final answer; and
// when the solution has grown past maxSolutionBytes. A continuation that
// ignored the stop sequence counts as all the steps it holds.
func readStep(c llm.Choice, before []string) (added []string, done bool) {
	added = splitSteps(c.Content)
	if len(added) == 0 || c.FinishReason == "length" {
		return added, true
	}
	size := 0
	for _, s := range before {
		size += len(s) + len(stepSep)
	}
	for _, s := range added {
		size += len(s) + len(stepSep)
		if hasFinal(s) {
			return added, true
		}
	}
	return added, size > maxSolutionBytes
}

// concat returns a fresh slice of a's steps followed by b's.
func concat(a, b []string) []string {
	return append(append(make([]string, 0, len(a)+len(b)), a...), b...)
}

// stepScorer asks the verifier to score (partial) solutions of one item
// and folds their step scores by agg.
type stepScorer struct {
	env          Env
	problem, agg string
	invalid      atomic.Int64 // answers that were no valid scores
}

// score scores steps at the call identity. A solution without steps is not
// sent: it scores 0. The verifier is a model and its answer hostile input:
// no scores, or scores that are not numbers in [0,1], score 0 and are
// recorded (the returned reason, the item's verifier_invalid count), as a
// garbled generation is a wrong item and not a failed run; an error of the
// verifier's call (after its retries) is returned.
func (s *stepScorer) score(ctx context.Context, call string, steps []string) (verify.Scores, float64, string, error) {
	if len(steps) == 0 {
		return nil, 0, "", nil
	}
	sc, err := s.env.Verifier.Verify(ctx, verify.Request{Call: call, Problem: s.problem, Steps: steps})
	if err != nil {
		return nil, 0, "", fmt.Errorf("verify %s: %w", call, err)
	}
	reason := ""
	if len(sc) == 0 {
		reason = "the verifier returned no scores"
	}
	for _, v := range sc {
		if math.IsNaN(v) || v < 0 || v > 1 {
			reason = fmt.Sprintf("the verifier returned score %v, not in [0,1]", v)
			break
		}
	}
	if reason != "" {
		s.invalid.Add(1)
		return nil, 0, reason, nil
	}
	a, err := verify.Aggregate(s.agg, sc)
	if err != nil {
		return nil, 0, "", err
	}
	return sc, a, "", nil
}

// parallel runs f(0..n-1) at once (the run's --concurrency bounds the calls
// in flight) and returns the error of the lowest index that failed, so the
// outcome does not depend on scheduling.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = f(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Selection rules over scored candidates.
const (
	selectBest     = "best"     // the highest aggregated score (search-and-learn's pred, "naive")
	selectWeighted = "weighted" // verifier scores summed per distinct answer
	selectMajority = "majority" // the most frequent answer, no verifier (CoT-SC's rule)
)

var selections = []string{selectBest, selectWeighted, selectMajority}

// pickBest is the first candidate with the highest score: numpy's argmax
// (best_of_n.py, beam_search.py) and the first of Python's stable sort by
// score (compute_naive_pred). -1 for none.
func pickBest(cs []reading.Candidate) int {
	best := -1
	for i, c := range cs {
		if best < 0 || c.Score > cs[best].Score {
			best = i
		}
	}
	return best
}

// pickWeighted sums scores per distinct answer key in order of first
// appearance and returns the first candidate of the first key with the
// largest sum, as find_answer_with_largest_sum (Python's max over an
// insertion-ordered dict keeps the first maximum, and the answer it
// returns is the group's first). It differs in one place: a candidate
// without an answer abstains, where search-and-learn groups the empty
// extraction as an answer of its own. With no answer at all, pickBest.
func pickWeighted(cs []reading.Candidate) int {
	sums := map[string]float64{}
	first := map[string]int{}
	var order []string
	for i, c := range cs {
		if c.Key == nil {
			continue
		}
		k := *c.Key
		if _, ok := first[k]; !ok {
			first[k] = i
			order = append(order, k)
		}
		sums[k] += c.Score
	}
	if len(order) == 0 {
		return pickBest(cs)
	}
	win := order[0]
	for _, k := range order[1:] {
		if sums[k] > sums[win] {
			win = k
		}
	}
	return first[win]
}

// pickMajority is the first candidate of the most frequent key, ties to
// the key seen first (Vote's and find_majority_answer's rule); -1 when no
// candidate answers.
func pickMajority(cs []reading.Candidate) int {
	counts := map[string]int{}
	first := map[string]int{}
	var order []string
	for i, c := range cs {
		if c.Key == nil {
			continue
		}
		if _, ok := first[*c.Key]; !ok {
			first[*c.Key] = i
			order = append(order, *c.Key)
		}
		counts[*c.Key]++
	}
	if len(order) == 0 {
		return -1
	}
	win := order[0]
	for _, k := range order[1:] {
		if counts[k] > counts[win] {
			win = k
		}
	}
	return first[win]
}

// pick applies the named rule.
func pick(rule string, cs []reading.Candidate) int {
	switch rule {
	case selectWeighted:
		return pickWeighted(cs)
	case selectMajority:
		return pickMajority(cs)
	}
	return pickBest(cs)
}

// ttsCommon are the parameters bon, beam and dvts share.
type ttsCommon struct {
	n           int
	temperature *float64
	maxTokens   int
	agg         string
	sel         string
	voteKey     string
}

func ttsCommonParams(n int, sel, selDoc string) []param.Param {
	return []param.Param{
		{Name: "n", Kind: param.Int, Default: n, Min: param.Bound(1), Max: param.Bound(1024), Show: true, Doc: "solutions generated per problem (search-and-learn's n)"},
		temperatureParam("temperature", 0.8, "sampling temperature of every step (search-and-learn's default 0.8)"),
		{Name: "max_tokens", Kind: param.Int, Default: 2048, Min: param.Bound(0), Doc: "completion token limit of each request (search-and-learn's 2048; 0: server default)"},
		{Name: "agg", Kind: param.String, Default: "last", Allowed: verify.Aggregations, Doc: "how a solution's step scores fold into one (search-and-learn's agg_strategy): last|min|prod|mean"},
		{Name: "select", Kind: param.String, Default: sel, Allowed: selections, Show: true, Doc: selDoc},
		{Name: "vote_key", Kind: param.String, Default: "", Doc: "the answer key weighted and majority group by: the task's vote keys (empty: the task's first)"},
	}
}

func newTTSCommon(v param.Values) ttsCommon {
	return ttsCommon{n: v.Int("n"), temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"),
		agg: v.String("agg"), sel: v.String("select"), voteKey: v.String("vote_key")}
}

// checkTask rejects a vote key the task does not know.
func (c ttsCommon) checkTask(t tasks.Task) error {
	if c.voteKey != "" && !slices.Contains(t.VoteKeys(), c.voteKey) {
		return fmt.Errorf("parameter vote_key=%s: task %s knows %v", c.voteKey, t.Name(), t.VoteKeys())
	}
	return nil
}

// needVerifier is the error of a Solve without the verifier it needs (the
// engine refuses such runs first; this guards direct callers).
func needVerifier(env Env, why string) error {
	if why != "" && env.Verifier == nil {
		return fmt.Errorf("no verifier: %s", why)
	}
	return nil
}

// finish scores the candidates with the task, applies every rule, and
// builds the result of the configured one. Metrics: the accuracy of each
// rule on this item (acc_best, acc_weighted, acc_majority: one run gives
// all three), sample_accuracy, best_of_k (an oracle's pick) and, with a
// verifier, verifier_invalid (its answers that were no valid scores).
func (c ttsCommon) finish(env Env, inst tasks.Instance, cs []reading.Candidate, sc *stepScorer, search any) Result {
	scored := sc != nil
	outputs := make([]string, len(cs))
	for i := range cs {
		outputs[i] = cs[i].Output
	}
	samples, correct := scoreSamples(env, inst, outputs)
	key := c.voteKey
	if key == "" {
		key = env.Task.VoteKeys()[0]
	}
	for i := range cs {
		cs[i].Answer, cs[i].Correct = samples[i].Answer, samples[i].Correct
		if k, ok := env.Task.AnswerKey(inst, cs[i].Output, key); ok {
			cs[i].Key = &k
		}
	}
	d := reading.TTSDetail{Select: c.sel, Agg: c.agg, VoteKey: key, Picks: map[string]int{}, Candidates: cs, Search: search}
	metrics := map[string]float64{"best_of_k": boolFloat(correct > 0)}
	if scored {
		metrics["verifier_invalid"] = float64(sc.invalid.Load())
	}
	if len(cs) > 0 {
		metrics["sample_accuracy"] = float64(correct) / float64(len(cs))
	}
	for _, rule := range selections {
		if rule != selectMajority && !scored {
			continue
		}
		i := pick(rule, cs)
		d.Picks[rule] = i
		metrics["acc_"+rule] = boolFloat(i >= 0 && cs[i].Correct)
	}
	d.Pick = -1
	if i, ok := d.Picks[c.sel]; ok {
		d.Pick = i
	}
	res := Result{Detail: d, Metrics: metrics}
	if d.Pick >= 0 {
		res.Output = cs[d.Pick].Output
	}
	res.Score = env.Task.Score(inst, res.Output)
	res.Accuracy = boolFloat(res.Score.Correct)
	res.Metrics = mergeMetrics(res.Metrics, res.Score.Metrics)
	return res
}
