package tau

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"sort"

	"github.com/reasonbench/reasonbench/pyval"
)

// baseTable is one data file (flights, users, ...) as parsed: shared by every
// DB of its domain and never mutated.
type baseTable struct {
	name    string
	records *pyval.Dict

	// The hash text, built once (Domain.hashOnce): keys sorted, and for
	// each sorted position j the entry "('KEY', <to_hashable(record)>)" at
	// text[off[j]:off[j+1]-2] (each entry is followed by ", ").
	sortedKeys  []string
	text        []byte
	off         []int
	checkpoints []checkpoint // ascending entries, the first at entry 0
}

func loadTable(name string, gz []byte) (*baseTable, error) {
	b, err := gunzip(gz)
	if err != nil {
		return nil, err
	}
	v, err := pyval.ParseJSON(b)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*pyval.Dict)
	if !ok {
		return nil, fmt.Errorf("%s is a JSON %s, not an object", name, pyval.TypeName(v))
	}
	return &baseTable{name: name, records: d}, nil
}

func (t *baseTable) buildHashText() error {
	t.sortedKeys = t.records.Keys()
	sort.Strings(t.sortedKeys)
	t.off = make([]int, 0, len(t.sortedKeys)+1)
	var err error
	for _, k := range t.sortedKeys {
		t.off = append(t.off, len(t.text))
		v, _ := t.records.Get(k)
		if t.text, err = pyval.AppendHashablePair(t.text, k, v); err != nil {
			return err
		}
		t.text = append(t.text, ", "...)
	}
	t.off = append(t.off, len(t.text))
	return nil
}

// DB is one trial's database: the domain's data as the tools see it,
// copy-on-write per record over the shared parsed data. A DB is not safe
// for concurrent use; every trial gets its own from Domain.NewDB.
type DB struct {
	dom    *Domain
	tables []dbTable // parallel to dom.tables
}

// dbTable is one table's state in one DB: the records this DB wrote (own)
// shadow the base's; keys the base lacks are also listed in insertion order
// (added), after the base's keys, as a Python dict orders them.
type dbTable struct {
	base  *baseTable
	own   map[string]pyval.Value
	added []string
}

// NewDB returns a fresh database: the domain's data, unchanged. It copies
// nothing until a tool writes.
func (d *Domain) NewDB() *DB {
	db := &DB{dom: d, tables: make([]dbTable, len(d.tables))}
	for i, t := range d.tables {
		db.tables[i].base = t
	}
	return db
}

// Domain returns the domain the database belongs to.
func (db *DB) Domain() *Domain { return db.dom }

func (db *DB) table(name string) *dbTable {
	for i := range db.tables {
		if db.tables[i].base.name == name {
			return &db.tables[i]
		}
	}
	panic("tau: no table " + name) // a programming error: names are constants
}

// lookup returns the record for a str key (own first), and whether it exists.
func (t *dbTable) lookup(k string) (pyval.Value, bool) {
	if v, ok := t.own[k]; ok {
		return v, true
	}
	return t.base.records.Get(k)
}

// has is Python's `key in table` for any key value: unhashable keys raise
// TypeError, keys of other types than str are never present.
func (t *dbTable) has(key pyval.Value) bool {
	switch k := key.(type) {
	case string:
		_, ok := t.lookup(k)
		return ok
	case *pyval.List, *pyval.Dict:
		raise("TypeError", "unhashable type: '%s'", pyval.TypeName(key))
	}
	return false
}

// get is table[key] for reading: the record must not be mutated.
func (t *dbTable) get(key pyval.Value) pyval.Value {
	if !t.has(key) {
		raiseKeyError(key)
	}
	v, _ := t.lookup(key.(string))
	return v
}

// mut is table[key] for a tool that may write to the record: the DB's own
// copy, made on first use.
func (t *dbTable) mut(key pyval.Value) pyval.Value {
	if !t.has(key) {
		raiseKeyError(key)
	}
	k := key.(string)
	if v, ok := t.own[k]; ok {
		return v
	}
	v, _ := t.base.records.Get(k)
	c := pyval.Clone(v)
	t.setOwn(k, c)
	return c
}

// set is table[k] = v.
func (t *dbTable) set(k string, v pyval.Value) {
	if _, ok := t.own[k]; !ok && !t.base.records.Has(k) {
		t.added = append(t.added, k)
	}
	t.setOwn(k, v)
}

func (t *dbTable) setOwn(k string, v pyval.Value) {
	if t.own == nil {
		t.own = map[string]pyval.Value{}
	}
	t.own[k] = v
}

// values returns the records in dict order, for reading.
func (t *dbTable) values() []pyval.Value {
	out := make([]pyval.Value, 0, t.base.records.Len()+len(t.added))
	for i := 0; i < t.base.records.Len(); i++ {
		if v, ok := t.own[t.base.records.Key(i)]; ok {
			out = append(out, v)
		} else {
			out = append(out, t.base.records.Val(i))
		}
	}
	for _, k := range t.added {
		out = append(out, t.own[k])
	}
	return out
}

// keysValues returns keys and records in dict order, for reading.
func (t *dbTable) keysValues() ([]string, []pyval.Value) {
	keys := append(t.base.records.Keys(), t.added...)
	return keys, t.values()
}

// checkpointBytes is the spacing of the SHA-256 states saved along the
// unchanged data's hash text: a hash resumes from the last one before the
// first record its DB changed.
const checkpointBytes = 32 << 10

// checkpoint is the SHA-256 state after the hash text that precedes a
// table's entry (the separator before it included).
type checkpoint struct {
	entry int
	state []byte
}

// hashBase prepares, once per domain, the hash text of every record and the
// checkpoints along the unchanged data's text, and its hash.
func (d *Domain) hashBase() error {
	d.hashOnce.Do(func() {
		for _, t := range d.tables {
			if err := t.buildHashText(); err != nil {
				d.hashErr = fmt.Errorf("tau: %s table %s: %w", d.name, t.name, err)
				return
			}
		}
		h := sha256.New()
		since := 0
		save := func(t *baseTable, entry int) {
			st, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				d.hashErr = err
				return
			}
			t.checkpoints = append(t.checkpoints, checkpoint{entry: entry, state: st})
			since = 0
		}
		h.Write([]byte{'('})
		for i, t := range d.tables {
			h.Write(tableHead(i, t.name))
			save(t, 0)
			for j := range t.sortedKeys {
				if since >= checkpointBytes {
					save(t, j)
				}
				n := t.off[j+1] - t.off[j] // the entry and the ", " after it
				if j == len(t.sortedKeys)-1 {
					n -= 2
				}
				h.Write(t.text[t.off[j] : t.off[j]+n])
				since += n
			}
			h.Write(tableTail(len(t.sortedKeys)))
		}
		h.Write(dataTail(len(d.tables)))
		d.baseHash = hex.EncodeToString(h.Sum(nil))
	})
	return d.hashErr
}

// tableHead is the hash text before a table's first entry.
func tableHead(i int, name string) []byte {
	var b []byte
	if i > 0 {
		b = append(b, ", "...)
	}
	b = pyval.AppendStrRepr(append(b, '('), name)
	return append(b, ", ("...)
}

// tableTail closes a table of n entries (a 1-tuple has its comma).
func tableTail(n int) []byte {
	if n == 1 {
		return []byte(",))")
	}
	return []byte("))")
}

func dataTail(tables int) []byte {
	if tables == 1 {
		return []byte(",)")
	}
	return []byte(")")
}

// Hash is the reference's get_data_hash(): consistent_hash(to_hashable(data)),
// the SHA-256 hex digest of str() of the data's sorted tuple form. It is
// streamed: unchanged records are written from text prepared once per
// process, and the digest resumes from a state saved just before the first
// record this DB changed (a DB that changed nothing costs nothing).
func (db *DB) Hash() (string, error) {
	d := db.dom
	if err := d.hashBase(); err != nil {
		return "", err
	}
	first := -1
	for i := range db.tables {
		if len(db.tables[i].own) > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return d.baseHash, nil
	}
	t := &db.tables[first]
	dirty := t.dirtyKeys()
	j0 := sort.SearchStrings(t.base.sortedKeys, dirty[0])
	cps := t.base.checkpoints
	c := sort.Search(len(cps), func(k int) bool { return cps[k].entry > j0 }) - 1
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(cps[c].state); err != nil {
		return "", err
	}
	scratch, err := t.writeHash(h, nil, dirty, cps[c].entry)
	if err != nil {
		return "", err
	}
	for i := first + 1; i < len(db.tables); i++ {
		t := &db.tables[i]
		h.Write(tableHead(i, t.base.name))
		if scratch, err = t.writeHash(h, scratch, t.dirtyKeys(), 0); err != nil {
			return "", err
		}
	}
	h.Write(dataTail(len(db.tables)))
	return hex.EncodeToString(h.Sum(nil)), nil
}

// dirtyKeys are the keys of the records this DB holds, sorted.
func (t *dbTable) dirtyKeys() []string {
	dirty := make([]string, 0, len(t.own))
	for k := range t.own {
		dirty = append(dirty, k)
	}
	slices.Sort(dirty)
	return dirty
}

// writeHash writes the table's entries in key order from base position
// from on (the text before it, separator included, is already written),
// runs of unchanged base records straight from the prepared text, then
// closes the table.
func (t *dbTable) writeHash(h hash.Hash, scratch []byte, dirty []string, from int) ([]byte, error) {
	base := t.base
	n := len(base.sortedKeys) + len(t.added)
	first := true // past entry 0 the state already holds the separator
	sep := func() {
		if !first {
			h.Write([]byte(", "))
		}
		first = false
	}
	pos := from // next base position not yet written
	flush := func(end int) {
		if end > pos {
			sep()
			h.Write(base.text[base.off[pos] : base.off[end]-2])
		}
	}
	var err error
	for _, k := range dirty {
		j := sort.SearchStrings(base.sortedKeys, k)
		inBase := j < len(base.sortedKeys) && base.sortedKeys[j] == k
		flush(j)
		sep()
		if scratch, err = pyval.AppendHashablePair(scratch[:0], k, t.own[k]); err != nil {
			return scratch, err
		}
		h.Write(scratch)
		pos = j
		if inBase {
			pos = j + 1
		}
	}
	flush(len(base.sortedKeys))
	h.Write(tableTail(n))
	return scratch, nil
}
