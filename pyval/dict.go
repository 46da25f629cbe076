package pyval

// Dict is a Python dict with str keys (the only keys JSON objects have): an
// insertion-ordered list of pairs, indexed by a map once it is large enough
// for the map to pay.
type Dict struct {
	keys  []string
	vals  []Value
	index map[string]int // nil while the dict is small
}

// dictIndexMin is the size from which a dict keeps a map index: below it a
// linear scan of a few keys is faster than hashing.
const dictIndexMin = 12

// NewDict returns an empty dict with room for n pairs.
func NewDict(n int) *Dict {
	return &Dict{keys: make([]string, 0, n), vals: make([]Value, 0, n)}
}

// Len is len(d).
func (d *Dict) Len() int { return len(d.keys) }

// Key returns the i-th key in insertion order.
func (d *Dict) Key(i int) string { return d.keys[i] }

// Val returns the i-th value in insertion order.
func (d *Dict) Val(i int) Value { return d.vals[i] }

// Keys returns a copy of the keys in insertion order.
func (d *Dict) Keys() []string { return append([]string(nil), d.keys...) }

func (d *Dict) find(k string) int {
	if d.index != nil {
		if i, ok := d.index[k]; ok {
			return i
		}
		return -1
	}
	for i, kk := range d.keys {
		if kk == k {
			return i
		}
	}
	return -1
}

// Get is d[k] without the KeyError: the value and whether k is present.
func (d *Dict) Get(k string) (Value, bool) {
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return nil, false
}

// Has is k in d.
func (d *Dict) Has(k string) bool { return d.find(k) >= 0 }

// Set is d[k] = v: a new key goes last, an existing one keeps its place.
func (d *Dict) Set(k string, v Value) {
	if i := d.find(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	if d.index != nil {
		d.index[k] = len(d.keys) - 1
	} else if len(d.keys) >= dictIndexMin {
		d.buildIndex()
	}
}

// Delete is del d[k]; it reports whether k was present.
func (d *Dict) Delete(k string) bool {
	i := d.find(k)
	if i < 0 {
		return false
	}
	d.keys = append(d.keys[:i], d.keys[i+1:]...)
	d.vals = append(d.vals[:i], d.vals[i+1:]...)
	if d.index != nil {
		d.buildIndex()
	}
	return true
}

func (d *Dict) buildIndex() {
	d.index = make(map[string]int, len(d.keys))
	for i, k := range d.keys {
		d.index[k] = i
	}
}

// Clone is copy.deepcopy(d).
func (d *Dict) Clone() *Dict {
	c := &Dict{keys: append([]string(nil), d.keys...), vals: make([]Value, len(d.vals))}
	for i, v := range d.vals {
		c.vals[i] = Clone(v)
	}
	if d.index != nil {
		c.buildIndex()
	}
	return c
}
