// Package tau holds τ-bench's two domains, airline and retail (Yao et al.
// 2024, sierra-research/tau-bench), as a library: their data, policies, tool
// schemas and tasks, embedded; a per-trial database whose tools behave as the
// reference's Python tools do, result strings, error strings and database
// changes alike; and the reference's reward, per version.
//
// Two versions of the reference are bundled: VersionHead (commit 59a200c,
// the repository today) and Version7362a17 (2024-11-22, the code and data of
// GPT-4o's logged airline run). They differ in the users' addresses
// (7362a17's say "province"), in some task instructions, in three tool
// descriptions and in the reward rule; the tools' behaviour is the same.
//
// Use:
//
//	dom, err := tau.Load("airline", tau.VersionHead) // parsed once per process
//	tasks, _ := dom.Tasks("test")
//	db := dom.NewDB()                                // one per trial, cheap
//	obs, err := db.Invoke("get_user_details", json.RawMessage(`{"user_id": "mia_li_3668"}`))
//	...
//	r, err := tasks[0].Reward(db, actionsTaken)      // the reference's reward
//
// Invoke mirrors the reference's Env.step for a tool call (an unknown name,
// Python's TypeError for missing or unexpected arguments, any exception the
// tool raises as "Error: <str(e)>"), and returns an error only where the
// reference itself would have failed the episode (arguments that are not a
// JSON object, a tool that returns None). The database is copy-on-write per
// record over data parsed once and never mutated; its hash is the
// reference's consistent_hash(to_hashable(data)), streamed into SHA-256.
//
// The episode loop stays with the caller: a "respond" action is a message
// to the user (the caller's user simulator answers it; "###STOP###" in the
// answer ends the episode), a call of TerminateTool (transfer_to_human_agents,
// in both domains) ends it after its observation, and the reference computes
// the reward only when an episode ends so, not when it reaches its step
// limit (the reward is then 0, with no reward_info).
package tau

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/pyval"
)

//go:embed data
var dataFS embed.FS

// The versions of the reference bundled.
const (
	VersionHead    = "head"    // commit 59a200c, the repository today
	Version7362a17 = "7362a17" // commit 7362a17, GPT-4o's logged airline run
)

// Commits maps each version to its full commit hash.
var Commits = map[string]string{
	VersionHead:    "59a200c6d575d595120f1cb70fea53cef0632f6b",
	Version7362a17: "7362a1708d720a4d697d042f21fd8637ea144c3b",
}

// Domains lists the domain names, Versions the versions.
var (
	Domains  = []string{"airline", "retail"}
	Versions = []string{VersionHead, Version7362a17}
)

// TerminateTool is the tool whose call ends an episode in both domains (the
// reference's terminate_tools); the reward's replay of gold actions skips it.
const TerminateTool = "transfer_to_human_agents"

// RespondAction is the name of the action that is a message to the user, not
// a tool call; its kwargs are {"content": text}.
const RespondAction = "respond"

// Domain is one domain at one version, parsed from the embedded files. It
// is immutable and safe for concurrent use; Load returns the same *Domain
// for the same arguments throughout a process.
type Domain struct {
	name, version string
	wiki          string
	rules         []string
	tools         []Tool
	splits        map[string][]*Task
	splitNames    []string
	fewShot       []string
	digest        string
	tables        []*baseTable // sorted by name, as to_hashable sorts the data's keys
	toolImpls     map[string]*toolImpl

	hashOnce sync.Once // the base tables' hash text, built on first use
	hashErr  error
	baseHash string // the unchanged data's hash
}

// Tool is one tool as the reference's get_info() gives it.
type Tool struct {
	Name        string
	Description string
	// JSON is the tool's get_info() object from tools.json, compacted
	// (whitespace removed; keys, order and text as given), what the
	// reference sends as one element of the request's "tools".
	JSON json.RawMessage
}

// Action is an agent's action as the reference records it: a tool call, or
// a message to the user (Name RespondAction, Kwargs {"content": text}).
type Action struct {
	Name string
	// Kwargs is a JSON object (keys in their original order).
	Kwargs json.RawMessage
}

// Respond returns the action of a message to the user.
func Respond(content string) Action {
	d := pyval.NewDict(1)
	d.Set("content", content)
	s, _ := pyval.DumpJSON(d)
	return Action{Name: RespondAction, Kwargs: json.RawMessage(s)}
}

// Task is one task of a split: the user the simulated user plays, the
// instruction it follows, the gold actions and the outputs the agent must
// say. Its slices are the task's own copies.
type Task struct {
	Split       string
	Index       int
	UserID      string
	Instruction string
	Actions     []Action // the gold actions, respond included if any, in order
	Outputs     []string

	dom *Domain
	gt  *gtCell // the lazily computed ground-truth hash, shared by copies
}

// Load returns the domain ("airline" or "retail") at the version
// (VersionHead or Version7362a17), parsing the embedded data the first time
// a process asks for that pair.
func Load(domain, version string) (*Domain, error) {
	i := slices.Index(Domains, domain)
	j := slices.Index(Versions, version)
	if i < 0 {
		return nil, fmt.Errorf("tau: unknown domain %q (want airline or retail)", domain)
	}
	if j < 0 {
		return nil, fmt.Errorf("tau: unknown version %q (want %s or %s)", version, VersionHead, Version7362a17)
	}
	return loaders[i][j]()
}

// loaders parse each (domain, version) once per process.
var loaders = func() (l [2][2]func() (*Domain, error)) {
	for i, d := range Domains {
		for j, v := range Versions {
			l[i][j] = sync.OnceValues(func() (*Domain, error) { return load(d, v) })
		}
	}
	return l
}()

// tableNames are each domain's data files, the keys of load_data()'s dict.
var tableNames = map[string][]string{
	"airline": {"flights", "reservations", "users"},
	"retail":  {"orders", "products", "users"},
}

// splitsOf are each domain's task splits, in the reference's order.
var splitsOf = map[string][]string{
	"airline": {"test"},
	"retail":  {"test", "train", "dev"},
}

var fewShotFile = map[string]string{
	"airline": "MockAirlineDomainEnv-few_shot.jsonl",
	"retail":  "MockRetailDomainEnv-few_shot.jsonl",
}

// files lists the logical files of a domain (paths as in the reference's
// layout, relative to the domain folder, few-shot file last).
func files(domain string) []string {
	var fs []string
	for _, t := range tableNames[domain] {
		fs = append(fs, "data/"+t+".json.gz")
	}
	if domain == "retail" {
		fs = append(fs, "data/readme.md")
	}
	fs = append(fs, "wiki.md", "tools.json", "rules.json")
	for _, s := range splitsOf[domain] {
		fs = append(fs, "tasks_"+s+".json")
	}
	return append(fs, "few_shot_data/"+fewShotFile[domain])
}

// readFile returns a logical file of a version: 7362a17's own copy where it
// has one, else head's (the two are then byte-identical).
func readFile(domain, version, name string) ([]byte, error) {
	if strings.HasPrefix(name, "few_shot_data/") {
		return dataFS.ReadFile("data/" + name)
	}
	if version != VersionHead {
		b, err := dataFS.ReadFile(path.Join("data", version, domain, name))
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return dataFS.ReadFile(path.Join("data", VersionHead, domain, name))
}

func load(domain, version string) (*Domain, error) {
	d := &Domain{name: domain, version: version, splits: map[string][]*Task{}}
	raw := map[string][]byte{}
	digest := sha256.New()
	for _, name := range files(domain) {
		b, err := readFile(domain, version, name)
		if err != nil {
			return nil, fmt.Errorf("tau: %s@%s: %w", domain, version, err)
		}
		raw[name] = b
		// The digest covers each file's name and bytes, lengths first so
		// that no two file sets share a stream.
		fmt.Fprintf(digest, "%s\x00%d\x00", name, len(b))
		digest.Write(b)
	}
	d.digest = hex.EncodeToString(digest.Sum(nil))
	d.wiki = string(raw["wiki.md"])
	if err := json.Unmarshal(raw["rules.json"], &d.rules); err != nil {
		return nil, fmt.Errorf("tau: %s@%s rules.json: %w", domain, version, err)
	}
	if err := d.loadTools(raw["tools.json"]); err != nil {
		return nil, fmt.Errorf("tau: %s@%s tools.json: %w", domain, version, err)
	}
	for _, s := range splitsOf[domain] {
		tasks, err := parseTasks(d, s, raw["tasks_"+s+".json"])
		if err != nil {
			return nil, fmt.Errorf("tau: %s@%s tasks_%s.json: %w", domain, version, s, err)
		}
		d.splits[s] = tasks
		d.splitNames = append(d.splitNames, s)
	}
	for _, line := range bytes.Split(raw["few_shot_data/"+fewShotFile[domain]], []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var row struct {
			Display *string `json:"messages_display"`
		}
		if err := json.Unmarshal(line, &row); err != nil || row.Display == nil {
			return nil, fmt.Errorf("tau: %s few-shot line %.40q: not a display (%v)", domain, line, err)
		}
		d.fewShot = append(d.fewShot, *row.Display)
	}
	names := slices.Clone(tableNames[domain])
	sort.Strings(names)
	for _, t := range names {
		bt, err := loadTable(t, raw["data/"+t+".json.gz"])
		if err != nil {
			return nil, fmt.Errorf("tau: %s@%s %s: %w", domain, version, t, err)
		}
		d.tables = append(d.tables, bt)
	}
	impls, err := toolImpls(domain)
	if err != nil {
		return nil, err
	}
	d.toolImpls = impls
	for _, t := range d.tools {
		if impls[t.Name] == nil {
			return nil, fmt.Errorf("tau: %s: tools.json names %q, which has no implementation", domain, t.Name)
		}
	}
	if len(impls) != len(d.tools) {
		return nil, fmt.Errorf("tau: %s: %d tools implemented, tools.json has %d", domain, len(impls), len(d.tools))
	}
	return d, nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func (d *Domain) loadTools(b []byte) error {
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil {
		return err
	}
	for _, e := range elems {
		var info struct {
			Type     string `json:"type"`
			Function struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"function"`
		}
		if err := json.Unmarshal(e, &info); err != nil {
			return err
		}
		if info.Type != "function" || info.Function.Name == "" {
			return fmt.Errorf("tool %.60s: not a function", e)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, e); err != nil {
			return err
		}
		d.tools = append(d.tools, Tool{Name: info.Function.Name, Description: info.Function.Description, JSON: c.Bytes()})
	}
	return nil
}

func parseTasks(d *Domain, split string, b []byte) ([]*Task, error) {
	var rows []struct {
		Index       *int    `json:"index"`
		UserID      *string `json:"user_id"`
		Instruction *string `json:"instruction"`
		Actions     []struct {
			Name   string          `json:"name"`
			Kwargs json.RawMessage `json:"kwargs"`
		} `json:"actions"`
		Outputs []string `json:"outputs"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, err
	}
	out := make([]*Task, len(rows))
	for i, r := range rows {
		if r.Index == nil || *r.Index != i || r.UserID == nil || r.Instruction == nil {
			return nil, fmt.Errorf("task %d: index, user_id or instruction missing or out of order", i)
		}
		t := &Task{Split: split, Index: i, UserID: *r.UserID, Instruction: *r.Instruction,
			Outputs: r.Outputs, dom: d, gt: &gtCell{}}
		if t.Outputs == nil {
			t.Outputs = []string{}
		}
		for _, a := range r.Actions {
			var c bytes.Buffer
			if err := json.Compact(&c, a.Kwargs); err != nil {
				return nil, fmt.Errorf("task %d action %s: %w", i, a.Name, err)
			}
			if _, ok := mustDict(c.Bytes()); !ok {
				return nil, fmt.Errorf("task %d action %s: kwargs not an object", i, a.Name)
			}
			t.Actions = append(t.Actions, Action{Name: a.Name, Kwargs: c.Bytes()})
		}
		out[i] = t
	}
	return out, nil
}

func mustDict(b []byte) (*pyval.Dict, bool) {
	v, err := pyval.ParseJSON(b)
	if err != nil {
		return nil, false
	}
	d, ok := v.(*pyval.Dict)
	return d, ok
}

// Name is the domain's name, "airline" or "retail".
func (d *Domain) Name() string { return d.name }

// Version is the reference version the domain was loaded at.
func (d *Domain) Version() string { return d.version }

// Wiki is the domain's policy, exactly: the tool-calling agent's system prompt.
func (d *Domain) Wiki() string { return d.wiki }

// Rules is the domain's RULES list (empty for airline).
func (d *Domain) Rules() []string { return slices.Clone(d.rules) }

// Tools lists the tools in the reference's ALL_TOOLS order.
func (d *Domain) Tools() []Tool {
	out := make([]Tool, len(d.tools))
	for i, t := range d.tools {
		out[i] = Tool{Name: t.Name, Description: t.Description, JSON: slices.Clone(t.JSON)}
	}
	return out
}

// Splits lists the task splits ("test"; retail also "train" and "dev").
func (d *Domain) Splits() []string { return slices.Clone(d.splitNames) }

// Tasks returns a split's tasks in order, as copies (the ground-truth hash
// cache is shared by the copies).
func (d *Domain) Tasks(split string) ([]Task, error) {
	ts, ok := d.splits[split]
	if !ok {
		return nil, fmt.Errorf("tau: %s has no split %q (have %s)", d.name, split, strings.Join(d.splitNames, ", "))
	}
	out := make([]Task, len(ts))
	for i, t := range ts {
		out[i] = *t
		out[i].Outputs = slices.Clone(t.Outputs)
		out[i].Actions = make([]Action, len(t.Actions))
		for j, a := range t.Actions {
			out[i].Actions[j] = Action{Name: a.Name, Kwargs: slices.Clone(a.Kwargs)}
		}
	}
	return out, nil
}

// FewShot returns the few-shot agent's displays, in file order.
func (d *Domain) FewShot() []string { return slices.Clone(d.fewShot) }

// DataDigest is the SHA-256 (hex) of the embedded files this domain was
// loaded from (data, wiki, tools, rules, tasks, few-shot displays), in a
// fixed order, each as its path in the reference's layout, a NUL, its
// length in decimal, a NUL and its bytes: two domains digest alike exactly
// when their files are byte-identical. A run's dataset hash.
func (d *Domain) DataDigest() string { return d.digest }

// IsTerminal reports whether a call of the tool ends the episode.
func (d *Domain) IsTerminal(tool string) bool { return tool == TerminateTool }
