package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Merging combines runs kept in several databases (the shards of a run,
// each made by its own process) into one run per configuration in another
// database: every finished item with its calls, tree, trajectory steps and
// reflections, and the run's response cache entries. Checkpoints are left
// behind: they belong to unfinished items, which are not copied. Texts are
// blobs re-addressed in the output: a blob is copied as stored when its
// zstd dictionary means the same there (same id, same content), else
// decompressed and compressed again, and found rather than copied when the
// output holds the same text. What makes runs one configuration is the
// caller's to say (MergeOptions.Describe), as bench knows which settings
// determine results.

// MergeField is one setting that determines a run's results.
type MergeField struct{ Name, Value string }

// MergeShard says which shard a run is.
type MergeShard struct {
	Index, Count int // the process's shard I of N
	Part         int // the run holds the items at positions p ≡ Part (mod Count) of its range
	Slot         int // the run's position in its experiment
}

// MergeInfo describes a run for a merge.
type MergeInfo struct {
	// Fields must all be equal for runs to be merged, in the order they
	// are compared (and named when they differ).
	Fields []MergeField
	Shard  *MergeShard // nil: not a shard
	// Key and Spec are the config key and spec of the merged run.
	Key  string
	Spec json.RawMessage
}

// MergeSource is one database to merge from.
type MergeSource struct {
	Name  string // for messages, e.g. the file name
	Store *Store
}

// MergeOptions configures Merge.
type MergeOptions struct {
	// Describe says what determines a run's results and which shard it is.
	Describe func(Run) (MergeInfo, error)
}

// MergeResult is what a merge did, one entry per merged run.
type MergeResult struct{ Runs []MergedRun }

// MergedRun is one run of the output.
type MergedRun struct {
	RunID      int64
	Created    bool // new in the output (else items were added to it)
	Experiment string
	Task       string
	Strategy   string
	Range      string
	Sources    []string // "a.db run 3 (shard 0/3)"
	Expected   int      // items of the range
	Items      int      // items the run holds now
	Added      int      // items this merge added
	Missing    []int    // indexes of the range no source holds yet
	Duplicates []MergeDuplicate
	Status     string
}

// MergeDuplicate is an item held by more than one source.
type MergeDuplicate struct {
	Index   int
	Kept    string // where the copy kept came from ("out.db run 1" if it was there already)
	Other   string
	Differs bool // the copies' outputs, verdicts or scores differ
}

// ErrMergeMismatch marks shards whose configurations differ.
var ErrMergeMismatch = errors.New("shards do not belong together")

type mergeRun struct {
	src   int
	run   Run
	info  MergeInfo
	ident string
	label string
}

// Merge merges the runs of srcs into out, one run per configuration, in
// one transaction. Items out already holds are kept, so merging again,
// or after a missing shard finished, adds only what is new.
func Merge(ctx context.Context, out *Store, srcs []MergeSource, o MergeOptions) (MergeResult, error) {
	var res MergeResult
	if o.Describe == nil {
		return res, errors.New("merge: no Describe")
	}
	var all []mergeRun
	for i, src := range srcs {
		runs, err := src.Store.Runs(ctx, RunFilter{})
		if err != nil {
			return res, fmt.Errorf("merge %s: %w", src.Name, err)
		}
		for _, r := range runs {
			info, err := o.Describe(r)
			if err != nil {
				return res, fmt.Errorf("merge %s run %d: %w", src.Name, r.ID, err)
			}
			label := fmt.Sprintf("%s run %d", src.Name, r.ID)
			if info.Shard != nil {
				label += fmt.Sprintf(" (shard %d/%d)", info.Shard.Index, info.Shard.Count)
			}
			all = append(all, mergeRun{src: i, run: r, info: info, ident: identity(info.Fields), label: label})
		}
	}
	if err := checkSlots(all); err != nil {
		return res, err
	}
	// Groups of one configuration, in order of first appearance, shards
	// in shard order.
	var order []string
	groups := map[string][]mergeRun{}
	for _, m := range all {
		if _, ok := groups[m.ident]; !ok {
			order = append(order, m.ident)
		}
		groups[m.ident] = append(groups[m.ident], m)
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b mergeRun) int { return shardIndex(a) - shardIndex(b) })
	}
	// Runs the output holds already, by configuration.
	existing := map[string]Run{}
	outRuns, err := out.Runs(ctx, RunFilter{})
	if err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	for _, r := range outRuns {
		info, err := o.Describe(r)
		if err != nil {
			continue
		}
		ident := identity(info.Fields)
		// Items added to a shard's run would make a run that still says
		// it is one shard, under the shard's config key.
		if _, merging := groups[ident]; merging && info.Shard != nil {
			return res, fmt.Errorf("%w: the output already holds run %d, shard %d/%d of a configuration being merged; merge into a new database (or one holding merged runs only)",
				ErrMergeMismatch, r.ID, info.Shard.Index, info.Shard.Count)
		}
		existing[ident] = r
	}
	// Everything goes in one transaction, prompts and dictionaries too, so
	// that a merge that fails leaves out as it was.
	w, err := out.beginWriteIn(ctx)
	if err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			w.Rollback()
			// The codec may know a dictionary the rollback took back.
			out.codec.forget()
		}
	}()
	// Prompts first (the output's dictionary is made of them), then the
	// dictionaries blobs may be copied under, then the encoder of out's
	// dictionary for the blobs that must be compressed again.
	m := &merger{out: out, w: w, dictOK: make([]map[uint32]bool, len(srcs)), srcs: srcs}
	for i, src := range srcs {
		if err := copyPrompts(ctx, src.Store, w); err != nil {
			return res, fmt.Errorf("merge %s: %w", src.Name, err)
		}
		if m.dictOK[i], err = shareDicts(ctx, src.Store, w); err != nil {
			return res, fmt.Errorf("merge %s: %w", src.Name, err)
		}
	}
	if err := out.readyEncoder(ctx, w); err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	if err := m.start(ctx); err != nil {
		return res, err
	}
	for _, ident := range order {
		prev, found := existing[ident]
		mr, err := m.group(ctx, groups[ident], prev, found)
		if err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, mr)
	}
	if err := w.commit(); err != nil {
		return res, fmt.Errorf("merge: %w", err)
	}
	committed = true
	return res, nil
}

func shardIndex(m mergeRun) int {
	if m.info.Shard == nil {
		return -1
	}
	return m.info.Shard.Index
}

// identity joins a run's fields into one comparable string.
func identity(fields []MergeField) string {
	b, _ := json.Marshal(fields)
	return string(b)
}

// checkSlots refuses shards made to be one run (the same experiment and
// position in it) whose configurations differ, naming the first setting
// that does.
func checkSlots(all []mergeRun) error {
	type slot struct {
		experiment string
		slot       int
	}
	first := map[slot]mergeRun{}
	for _, m := range all {
		if m.info.Shard == nil {
			continue
		}
		k := slot{m.run.Experiment, m.info.Shard.Slot}
		f, ok := first[k]
		if !ok {
			first[k] = m
			continue
		}
		if f.ident == m.ident {
			continue
		}
		for i, a := range f.info.Fields {
			if i >= len(m.info.Fields) || m.info.Fields[i] != a {
				got := "(none)"
				if i < len(m.info.Fields) {
					got = m.info.Fields[i].Name + " " + strconv.Quote(m.info.Fields[i].Value)
				}
				return fmt.Errorf("%w: %s differs: %s in %s, %s in %s; merge only shards of one configuration",
					ErrMergeMismatch, a.Name, strconv.Quote(a.Value), f.label, got, m.label)
			}
		}
		return fmt.Errorf("%w: %s has settings %s lacks", ErrMergeMismatch, m.label, f.label)
	}
	return nil
}

// copyPrompts copies the template texts (by hash) out lacks.
func copyPrompts(ctx context.Context, src *Store, w *writeTx) error {
	rows, err := src.db.QueryContext(ctx, `SELECT hash, name, text FROM prompts ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("read prompts: %w", err)
	}
	type prompt struct{ hash, name, text string }
	var ps []prompt
	for rows.Next() {
		var p prompt
		if err := rows.Scan(&p.hash, &p.name, &p.text); err != nil {
			rows.Close()
			return fmt.Errorf("read prompts: %w", err)
		}
		ps = append(ps, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read prompts: %w", err)
	}
	for _, p := range ps {
		if _, err := w.ExecContext(ctx, `INSERT OR IGNORE INTO prompts (hash, name, text) VALUES (?, ?, ?)`, p.hash, p.name, p.text); err != nil {
			return fmt.Errorf("store prompt %s: %w", p.name, err)
		}
		w.s.codec.promptStored(p.hash)
	}
	return nil
}

// shareDicts makes src's dictionaries usable in out where they can be: one
// out holds under the same id with the same content is; one whose id and
// content out lacks is copied under its id. It returns the ids whose frames
// can be copied as they are; the others are compressed again.
func shareDicts(ctx context.Context, src *Store, w *writeTx) (map[uint32]bool, error) {
	type dict struct {
		id   int64
		hash []byte
		data []byte
	}
	read := func(db querier, withData bool) ([]dict, error) {
		q := `SELECT id, hash, NULL FROM dicts`
		if withData {
			q = `SELECT id, hash, data FROM dicts`
		}
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read dictionaries: %w", err)
		}
		defer rows.Close()
		var ds []dict
		for rows.Next() {
			var d dict
			if err := rows.Scan(&d.id, &d.hash, &d.data); err != nil {
				return nil, fmt.Errorf("read dictionaries: %w", err)
			}
			ds = append(ds, d)
		}
		return ds, rows.Err()
	}
	srcDicts, err := read(src.db, true)
	if err != nil {
		return nil, err
	}
	outDicts, err := read(w, false)
	if err != nil {
		return nil, err
	}
	byID, byHash := map[int64][]byte{}, map[string]bool{}
	for _, d := range outDicts {
		byID[d.id], byHash[string(d.hash)] = d.hash, true
	}
	ok := map[uint32]bool{}
	for _, d := range srcDicts {
		if d.id <= 0 || d.id > 1<<32-1 {
			continue
		}
		if h, taken := byID[d.id]; taken {
			ok[uint32(d.id)] = bytes.Equal(h, d.hash)
			continue
		}
		if byHash[string(d.hash)] {
			continue // the same dictionary under another id: compress again
		}
		if _, err := w.ExecContext(ctx, `INSERT INTO dicts (id, hash, data) VALUES (?, ?, ?)`, d.id, d.hash, d.data); err != nil {
			return nil, fmt.Errorf("copy dictionary %d: %w", d.id, err)
		}
		byID[d.id], byHash[string(d.hash)] = d.hash, true
		ok[uint32(d.id)] = true
	}
	return ok, nil
}

// merger copies into out within one write transaction.
type merger struct {
	out    *Store
	w      *writeTx
	srcs   []MergeSource
	dictOK []map[uint32]bool // per source: dictionaries whose frames copy as they are
	blobs  []map[int64]int64 // per source: blob id → out's
	hashes map[int64][]int64 // out's blobs by content hash
	nextID int64             // the next call id in out
}

func (m *merger) start(ctx context.Context) error {
	m.blobs = make([]map[int64]int64, len(m.srcs))
	for i := range m.blobs {
		m.blobs[i] = map[int64]int64{}
	}
	m.hashes = map[int64][]int64{}
	rows, err := m.w.QueryContext(ctx, `SELECT id, hash FROM blobs`)
	if err != nil {
		return fmt.Errorf("merge: read blobs: %w", err)
	}
	for rows.Next() {
		var id, h int64
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return fmt.Errorf("merge: read blobs: %w", err)
		}
		m.hashes[h] = append(m.hashes[h], id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("merge: read blobs: %w", err)
	}
	var last int64
	if err := m.out.queryRow(ctx, m.w, qLastCall).Scan(&last); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	m.nextID = last + 1
	return nil
}

// itemSig is what tells two copies of an item apart.
type itemSig struct {
	output  string
	correct bool
	score   float64
	err     string
	from    string
	prior   bool // in the output before this merge
}

// group merges the runs of one configuration into prev (found) or a new run.
func (m *merger) group(ctx context.Context, g []mergeRun, prev Run, found bool) (MergedRun, error) {
	base := g[0]
	mr := MergedRun{Experiment: base.run.Experiment, Task: base.run.Task, Strategy: base.run.Strategy, Range: base.run.Range}
	for _, r := range g {
		mr.Sources = append(mr.Sources, r.label)
	}
	have := map[int]itemSig{}
	if found {
		mr.RunID = prev.ID
		sigs, err := itemSigs(ctx, m.w, prev.ID, fmt.Sprintf("the output's run %d", prev.ID))
		if err != nil {
			return mr, err
		}
		for i, s := range sigs {
			s.prior = true
			sigs[i] = s
		}
		have = sigs
	} else {
		id, err := m.createRun(ctx, g)
		if err != nil {
			return mr, err
		}
		mr.RunID, mr.Created = id, true
	}
	for _, r := range g {
		added, err := m.copyRun(ctx, r, mr.RunID, have, &mr)
		if err != nil {
			return mr, fmt.Errorf("merge %s: %w", r.label, err)
		}
		mr.Added += added
	}
	mr.Items = len(have)
	lo, hi, ok := parseRange(base.run.Range)
	if ok {
		mr.Expected = hi - lo
		for i := lo; i < hi; i++ {
			if _, ok := have[i]; !ok {
				mr.Missing = append(mr.Missing, i)
			}
		}
	}
	if err := m.finishRun(ctx, mr, g, prev, found); err != nil {
		return mr, err
	}
	mr.Status = StatusDone
	if len(mr.Missing) > 0 {
		mr.Status = StatusInterrupted
	}
	return mr, nil
}

func parseRange(s string) (lo, hi int, ok bool) {
	a, b, found := strings.Cut(s, ":")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	return lo, hi, found && err1 == nil && err2 == nil && lo <= hi
}

// itemSigs reads the items a run holds.
func itemSigs(ctx context.Context, q querier, runID int64, from string) (map[int]itemSig, error) {
	rows, err := q.QueryContext(ctx, `SELECT idx, output, correct, score, error FROM items WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("items of run %d: %w", runID, err)
	}
	defer rows.Close()
	out := map[int]itemSig{}
	for rows.Next() {
		var i int
		s := itemSig{from: from}
		if err := rows.Scan(&i, &s.output, &s.correct, &s.score, &s.err); err != nil {
			return nil, fmt.Errorf("items of run %d: %w", runID, err)
		}
		out[i] = s
	}
	return out, rows.Err()
}

// createRun records the merged run: the configuration of its sources, the
// whole range, every endpoint that served a source.
func (m *merger) createRun(ctx context.Context, g []mergeRun) (int64, error) {
	r := g[0].run
	started := r.StartedAt
	for _, x := range g {
		if x.run.StartedAt.Before(started) {
			started = x.run.StartedAt
		}
	}
	res, err := m.w.ExecContext(ctx, `INSERT INTO runs
		(experiment, task, strategy, params, model, endpoint, simulated, sim_params, seed, item_range, spec, code_version, status, started_at, config_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Experiment, r.Task, r.Strategy, orEmptyObject(r.Params), r.Model, endpoints("", g), r.Simulated,
		orEmptyObject(r.SimParams), r.Seed, r.Range, orEmptyObject(g[0].info.Spec), r.CodeVersion, StatusRunning,
		started.UTC().Format(time.RFC3339Nano), g[0].info.Key)
	if err != nil {
		return 0, fmt.Errorf("merge: create run: %w", err)
	}
	return res.LastInsertId()
}

// endpoints joins the distinct endpoints of prev ("A,B") and the sources.
func endpoints(prev string, g []mergeRun) string {
	var out []string
	add := func(s string) {
		for _, e := range strings.Split(s, ",") {
			if e = strings.TrimSpace(e); e != "" && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	add(prev)
	for _, x := range g {
		add(x.run.Endpoint)
	}
	return strings.Join(out, ",")
}

// finishRun sets the merged run's status (done once it holds every item of
// its range), wall time (the longest source's: shards run side by side)
// and endpoints.
func (m *merger) finishRun(ctx context.Context, mr MergedRun, g []mergeRun, prev Run, found bool) error {
	wall, finished := prev.WallSeconds, prev.FinishedAt
	for _, x := range g {
		wall = max(wall, x.run.WallSeconds)
		if x.run.FinishedAt.After(finished) {
			finished = x.run.FinishedAt
		}
	}
	if finished.IsZero() {
		finished = time.Now()
	}
	status, msg := StatusDone, ""
	if len(mr.Missing) > 0 {
		status = StatusInterrupted
		msg = fmt.Sprintf("merged %d of %d items; missing %s: merge again once the shards holding them finish (or bench resume this run)",
			mr.Items, mr.Expected, IndexList(mr.Missing, 12))
	}
	prevEndpoint := ""
	if found {
		prevEndpoint = prev.Endpoint
	}
	_, err := m.w.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, wall_seconds = ?, error = ?, endpoint = ? WHERE id = ?`,
		status, finished.UTC().Format(time.RFC3339Nano), wall, msg, endpoints(prevEndpoint, g), mr.RunID)
	if err != nil {
		return fmt.Errorf("merge: finish run %d: %w", mr.RunID, err)
	}
	return nil
}

// IndexList writes sorted indexes as ranges, "903, 906-909", at most
// most ranges and a count of the rest.
func IndexList(xs []int, most int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(xs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		}
		i = j + 1
	}
	if len(parts) > most {
		return strings.Join(parts[:most], ", ") + fmt.Sprintf(" and %d more", len(parts)-most)
	}
	return strings.Join(parts, ", ")
}

// copyRun copies the finished items of one source run that the merged run
// lacks, with what belongs to them, and the run's cache entries.
func (m *merger) copyRun(ctx context.Context, r mergeRun, to int64, have map[int]itemSig, mr *MergedRun) (int, error) {
	src := m.srcs[r.src].Store
	sigs, err := itemSigs(ctx, src.db, r.run.ID, r.label)
	if err != nil {
		return 0, err
	}
	add := map[int]bool{}
	for _, idx := range slices.Sorted(mapKeys(sigs)) {
		s := sigs[idx]
		if h, ok := have[idx]; ok {
			differs := h.output != s.output || h.correct != s.correct || h.score != s.score || h.err != s.err
			// An item merged by an earlier merge from this same source is
			// no duplicate: merging again changes nothing.
			if differs || !h.prior {
				mr.Duplicates = append(mr.Duplicates, MergeDuplicate{Index: idx, Kept: h.from, Other: r.label, Differs: differs})
			}
			continue
		}
		add[idx] = true
		have[idx] = s
	}
	if len(add) > 0 {
		keep := func(row map[string]any) bool { return add[int(asInt(row["idx"]))] }
		if _, err := m.copyRows(ctx, src, "items", `run_id = ?`, []any{r.run.ID}, keep, map[string]any{"run_id": to}, nil); err != nil {
			return 0, err
		}
		keepItem := func(row map[string]any) bool { return add[int(asInt(row["item_idx"]))] }
		if _, err := m.copyRows(ctx, src, "steps", `run_id = ?`, []any{r.run.ID}, keepItem, map[string]any{"run_id": to}, nil); err != nil {
			return 0, err
		}
		if _, err := m.copyRows(ctx, src, "executions", `run_id = ?`, []any{r.run.ID}, keepItem, map[string]any{"run_id": to}, nil); err != nil {
			return 0, err
		}
		if err := m.copyReflections(ctx, r, to, sigs, add); err != nil {
			return 0, err
		}
		if err := m.copyCalls(ctx, r, to, add); err != nil {
			return 0, err
		}
		if err := m.copyTrees(ctx, r, to, add); err != nil {
			return 0, err
		}
	}
	if err := m.copyCache(ctx, r, to); err != nil {
		return 0, err
	}
	return len(add), nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case []byte:
		n, _ := strconv.ParseInt(string(x), 10, 64)
		return n
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// copyRows copies the rows of a table a WHERE clause selects from src to
// out, every column as it is except those set (and those dropped, which
// out assigns), keeping those keep accepts. Every column is copied, so a
// column added to the schema later is carried without a change here.
func (m *merger) copyRows(ctx context.Context, src *Store, table, where string, args []any, keep func(map[string]any) bool,
	set map[string]any, drop []string) (int, error) {
	rows, err := src.db.QueryContext(ctx, `SELECT * FROM `+table+` WHERE `+where, args...)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", table, err)
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return 0, fmt.Errorf("read %s: %w", table, err)
	}
	var recs []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read %s: %w", table, err)
		}
		rec := make(map[string]any, len(cols))
		for i, c := range cols {
			rec[c] = vals[i]
		}
		if keep == nil || keep(rec) {
			recs = append(recs, rec)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", table, err)
	}
	if len(recs) == 0 {
		return 0, nil
	}
	var names []string
	for _, c := range cols {
		if !slices.Contains(drop, c) {
			names = append(names, c)
		}
	}
	quoted := make([]string, len(names))
	for i, c := range names {
		quoted[i] = `"` + c + `"`
	}
	st, err := m.w.PrepareContext(ctx, `INSERT INTO `+table+` (`+strings.Join(quoted, ", ")+`) VALUES (`+placeholders(len(names))+`)`)
	if err != nil {
		return 0, fmt.Errorf("copy %s: %w", table, err)
	}
	defer st.Close()
	vals := make([]any, len(names))
	for _, rec := range recs {
		for i, c := range names {
			if v, ok := set[c]; ok {
				vals[i] = v
			} else {
				vals[i] = rec[c]
			}
		}
		if _, err := st.ExecContext(ctx, vals...); err != nil {
			return 0, fmt.Errorf("copy %s: %w", table, err)
		}
	}
	return len(recs), nil
}

// copyReflections copies the reflections the source run wrote on the items
// copied; its own memory ("run:ID") is renamed to the merged run's.
func (m *merger) copyReflections(ctx context.Context, r mergeRun, to int64, sigs map[int]itemSig, add map[int]bool) error {
	src := m.srcs[r.src].Store
	keys := map[string]bool{}
	rows, err := src.db.QueryContext(ctx, `SELECT idx, key FROM items WHERE run_id = ?`, r.run.ID)
	if err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	for rows.Next() {
		var idx int
		var key string
		if err := rows.Scan(&idx, &key); err != nil {
			rows.Close()
			return fmt.Errorf("read items: %w", err)
		}
		if add[idx] {
			keys[key] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read items: %w", err)
	}
	own := RunMemory(r.run.ID)
	keep := func(row map[string]any) bool {
		if !keys[asString(row["instance_key"])] {
			return false
		}
		if asString(row["memory"]) == own {
			row["memory"] = RunMemory(to)
		}
		return true
	}
	_, err = m.copyRows(ctx, src, "reflections", `run_id = ?`, []any{r.run.ID}, keep, map[string]any{"run_id": to}, []string{"id"})
	return err
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

// copyCalls copies the call batches of the items added, with new call ids
// (above every id out holds, in the source's order) and blob ids, and
// their events.
func (m *merger) copyCalls(ctx context.Context, r mergeRun, to int64, add map[int]bool) error {
	src := m.srcs[r.src].Store
	var batches []batchRow
	err := src.eachBatchRow(ctx, src.db, `WHERE run_id = ? ORDER BY last_id`, []any{r.run.ID}, true, func(b batchRow) error {
		if add[b.item] && (len(b.recs) > 0 || b.hasEvents) {
			batches = append(batches, b)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read calls: %w", err)
	}
	var ids []int64
	for _, b := range batches {
		for _, c := range b.recs {
			ids = append(ids, c.Request, c.Response)
		}
	}
	if err := m.copyBlobs(ctx, r.src, ids); err != nil {
		return err
	}
	for _, b := range batches {
		recs := make([]callRecord, len(b.recs))
		for i, c := range b.recs {
			c.ID = m.nextID
			m.nextID++
			c.Request, c.Response = m.blobs[r.src][c.Request], m.blobs[r.src][c.Response]
			recs[i] = c
		}
		last := m.nextID - 1
		if len(recs) == 0 { // a batch of events alone takes an id of its own
			last = m.nextID
			m.nextID++
		}
		var evs []byte // as stored, but compressed by out's codec
		if b.hasEvents {
			evs = b.events
		}
		if err := m.out.insertBatch(ctx, m.w, to, b.item, last, recs, evs); err != nil {
			return err
		}
	}
	return nil
}

// copyTrees copies the search trees of the items added.
func (m *merger) copyTrees(ctx context.Context, r mergeRun, to int64, add map[int]bool) error {
	src := m.srcs[r.src].Store
	rows, err := src.db.QueryContext(ctx, `SELECT item_idx, blob FROM trees WHERE run_id = ?`, r.run.ID)
	if err != nil {
		return fmt.Errorf("read trees: %w", err)
	}
	type tree struct {
		item int
		blob int64
	}
	var trees []tree
	var ids []int64
	for rows.Next() {
		var t tree
		if err := rows.Scan(&t.item, &t.blob); err != nil {
			rows.Close()
			return fmt.Errorf("read trees: %w", err)
		}
		if add[t.item] {
			trees = append(trees, t)
			ids = append(ids, t.blob)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read trees: %w", err)
	}
	if err := m.copyBlobs(ctx, r.src, ids); err != nil {
		return err
	}
	for _, t := range trees {
		if _, err := m.out.exec(ctx, m.w, qTreePut, to, t.item, m.blobs[r.src][t.blob]); err != nil {
			return fmt.Errorf("copy tree: %w", err)
		}
	}
	return nil
}

// copyCache copies the response cache entries the source run stored and
// out lacks, marked as the merged run's.
func (m *merger) copyCache(ctx context.Context, r mergeRun, to int64) error {
	src := m.srcs[r.src].Store
	rows, err := src.db.QueryContext(ctx, `SELECT key, request, response, latency_us FROM cache WHERE run_id = ?`, r.run.ID)
	if err != nil {
		return fmt.Errorf("read cache: %w", err)
	}
	type entry struct {
		key       []byte
		req       sql.NullInt64
		resp, lat int64
	}
	var entries []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.key, &e.req, &e.resp, &e.lat); err != nil {
			rows.Close()
			return fmt.Errorf("read cache: %w", err)
		}
		entries = append(entries, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read cache: %w", err)
	}
	var todo []entry
	var ids []int64
	for _, e := range entries {
		var stored bool
		if err := m.w.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM cache WHERE key = ?)`, e.key).Scan(&stored); err != nil {
			return fmt.Errorf("copy cache: %w", err)
		}
		if stored {
			continue
		}
		todo = append(todo, e)
		ids = append(ids, e.resp)
		if e.req.Valid {
			ids = append(ids, e.req.Int64)
		}
	}
	if err := m.copyBlobs(ctx, r.src, ids); err != nil {
		return err
	}
	for _, e := range todo {
		var req any
		if e.req.Valid {
			req = m.blobs[r.src][e.req.Int64]
		}
		if _, err := m.out.exec(ctx, m.w, qCachePut, e.key, req, m.blobs[r.src][e.resp], e.lat, to); err != nil {
			return fmt.Errorf("copy cache: %w", err)
		}
	}
	return nil
}

// copyBlobs gives the source's blobs ids in out: found there by content, or
// stored (as they are when their dictionary means the same in out).
func (m *merger) copyBlobs(ctx context.Context, si int, ids []int64) error {
	src := m.srcs[si].Store
	known := m.blobs[si]
	var todo []int64
	seen := map[int64]bool{}
	for _, id := range ids {
		if _, ok := known[id]; !ok && !seen[id] {
			seen[id] = true
			todo = append(todo, id)
		}
	}
	slices.Sort(todo)
	const chunk = 500
	for len(todo) > 0 {
		n := min(chunk, len(todo))
		args := make([]any, n)
		for i, id := range todo[:n] {
			args[i] = id
		}
		rows, err := src.db.QueryContext(ctx, `SELECT id, hash, data FROM blobs WHERE id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return fmt.Errorf("read blobs: %w", err)
		}
		type blob struct {
			id, hash int64
			data     []byte
		}
		var bs []blob
		for rows.Next() {
			var b blob
			if err := rows.Scan(&b.id, &b.hash, &b.data); err != nil {
				rows.Close()
				return fmt.Errorf("read blobs: %w", err)
			}
			bs = append(bs, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read blobs: %w", err)
		}
		if len(bs) != n {
			return fmt.Errorf("read blobs: %d of %d referenced blobs are missing", n-len(bs), n)
		}
		for _, b := range bs {
			id, err := m.copyBlob(ctx, si, b.hash, b.data)
			if err != nil {
				return fmt.Errorf("blob %d: %w", b.id, err)
			}
			known[b.id] = id
		}
		todo = todo[n:]
	}
	return nil
}

// copyBlob stores one blob of source si (its hash column and stored bytes)
// in out, or finds the same content there.
func (m *merger) copyBlob(ctx context.Context, si int, hash int64, stored []byte) (int64, error) {
	src := m.srcs[si].Store
	if len(stored) == 0 {
		return 0, errCorrupt
	}
	asIs := stored[0] == codecRaw
	if stored[0] == codecZstd {
		if d, ok := frameDict(stored); ok && m.dictOK[si][d] {
			asIs = true
		}
	}
	var content []byte // decoded when needed
	decoded := func() ([]byte, error) {
		if content == nil {
			c, err := src.decode(ctx, src.db, stored)
			if err != nil {
				return nil, err
			}
			content = c
		}
		return content, nil
	}
	for _, cand := range m.hashes[hash] {
		var data []byte
		if err := m.w.QueryRowContext(ctx, `SELECT data FROM blobs WHERE id = ?`, cand).Scan(&data); err != nil {
			return 0, fmt.Errorf("read blob %d: %w", cand, err)
		}
		if asIs && bytes.Equal(data, stored) {
			return cand, nil // same bytes under the same dictionary: the same text
		}
		have, err := m.out.decode(ctx, m.w, data)
		if err != nil {
			return 0, fmt.Errorf("blob %d: %w", cand, err)
		}
		c, err := decoded()
		if err != nil {
			return 0, err
		}
		if bytes.Equal(have, c) {
			return cand, nil
		}
	}
	out := stored
	if !asIs {
		c, err := decoded()
		if err != nil {
			return 0, err
		}
		if out, err = m.out.encode(c); err != nil {
			return 0, err
		}
	}
	res, err := m.out.exec(ctx, m.w, qBlobInsert, hash, out)
	if err != nil {
		return 0, fmt.Errorf("store blob: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("store blob: %w", err)
	}
	m.hashes[hash] = append(m.hashes[hash], id)
	return id, nil
}

// frameDict is the dictionary id a stored zstd frame names.
func frameDict(stored []byte) (uint32, bool) {
	n := min(len(stored)-1, 32)
	frame := append(append(make([]byte, 0, len(zstdMagic)+n), zstdMagic...), stored[1:1+n]...)
	var h zstd.Header
	if err := h.Decode(frame); err != nil {
		return 0, false
	}
	return h.DictionaryID, true
}
