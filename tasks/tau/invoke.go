package tau

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/pyval"
)

// toolImpl is one tool's Go implementation with what Python's argument
// binding needs to word its errors.
type toolImpl struct {
	name   string
	class  string   // the Python class, as TypeError messages name it
	module string   // its module file, for the one message that names it
	params []string // the invoke() parameters after data, in order
	// run executes the tool on bound arguments (len(params) of them); it
	// returns the observation (a string) or nil where the Python returns
	// None, and raises Python exceptions by panicking (see ops.go).
	run func(db *DB, a []value) value
}

func toolImpls(domain string) (map[string]*toolImpl, error) {
	var list []*toolImpl
	switch domain {
	case "airline":
		list = airlineTools()
	case "retail":
		list = retailTools()
	default:
		return nil, fmt.Errorf("tau: no tools for domain %q", domain)
	}
	m := make(map[string]*toolImpl, len(list))
	for _, t := range list {
		t.module = "tau_bench.envs." + domain + ".tools." + t.name
		m[t.name] = t
	}
	return m, nil
}

// ErrArguments is returned (wrapped) by Invoke when the arguments are not a
// JSON object. The reference's agents json.loads the arguments into the
// action before the environment sees it; that failure is not an
// observation but an exception that ends the episode with reward 0.
var ErrArguments = errors.New("tool arguments are not a JSON object")

// ErrNoObservation is returned by Invoke when the reference's tool returns
// None instead of a string (send_certificate once a user holds all three
// certificates it can add): the reference's environment then fails to build
// its response and the episode ends with an error.
var ErrNoObservation = errors.New("the tool returned None, not an observation")

// ErrRespond is returned by Invoke for the name "respond": the reference
// treats that action as a message to the user, never as a tool.
var ErrRespond = errors.New(`"respond" is a message to the user, not a tool`)

// Invoke runs one tool call as the reference's Env.step runs it and returns
// the observation: the tool's result, "Unknown action NAME" for a name that
// is no tool, "Error: <str(e)>" for any exception the Python tool would
// raise (missing or unexpected arguments, a KeyError, a TypeError from an
// argument of the wrong type), with the database changed exactly as the
// Python tool would have changed it before raising. args is the call's
// arguments as the model gave them (a JSON object; json.loads semantics).
// The error is non-nil only in the cases the reference does not survive:
// ErrArguments, ErrNoObservation, ErrRespond (wrapped), or an internal error
// of this package (a bug; recorded, never a panic).
func (db *DB) Invoke(name string, args json.RawMessage) (string, error) {
	if name == RespondAction {
		return "", fmt.Errorf("tau: %w", ErrRespond)
	}
	v, err := pyval.ParseJSON(args)
	if err != nil {
		return "", fmt.Errorf("tau: %s: %w: %v", name, ErrArguments, err)
	}
	kw, ok := v.(*pyval.Dict)
	if !ok {
		return "", fmt.Errorf("tau: %s: %w: a JSON %s", name, ErrArguments, pyval.TypeName(v))
	}
	return db.call(name, kw)
}

// call runs a tool on parsed keyword arguments, which it may keep (the
// Python tools store argument lists in the database).
func (db *DB) call(name string, kw *pyval.Dict) (string, error) {
	obs, _, err := db.callDetail(name, kw)
	return obs, err
}

// callDetail is call, also reporting whether the observation is a Python
// exception the tool raised (which may follow writes), as opposed to a
// result it returned.
func (db *DB) callDetail(name string, kw *pyval.Dict) (obs string, raised bool, err error) {
	t := db.dom.toolImpls[name]
	if t == nil {
		return "Unknown action " + name, false, nil
	}
	if msg := bindError(t, kw); msg != "" {
		return "Error: " + msg, true, nil
	}
	args := make([]value, len(t.params))
	for i, p := range t.params {
		args[i], _ = kw.Get(p)
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*pyval.Exception); ok {
				obs, raised, err = "Error: "+e.Msg, true, nil
				return
			}
			obs, raised, err = "", false, fmt.Errorf("tau: %s: internal error: %v", name, r)
		}
	}()
	res := t.run(db, args)
	if res == nil {
		return "", false, fmt.Errorf("tau: %s: %w", name, ErrNoObservation)
	}
	return res.(string), false, nil
}

// bindError is the TypeError Python raises binding invoke(data=..., **kw),
// or "" when the arguments bind.
func bindError(t *toolImpl, kw *pyval.Dict) string {
	if kw.Has("data") {
		return fmt.Sprintf("%s.%s.invoke() got multiple values for keyword argument 'data'", t.module, t.class)
	}
	for i := 0; i < kw.Len(); i++ {
		k := kw.Key(i)
		known := false
		for _, p := range t.params {
			if p == k {
				known = true
				break
			}
		}
		if !known {
			return fmt.Sprintf("%s.invoke() got an unexpected keyword argument '%s'", t.class, k)
		}
	}
	var missing []string
	for _, p := range t.params {
		if !kw.Has(p) {
			missing = append(missing, "'"+p+"'")
		}
	}
	if len(missing) == 0 {
		return ""
	}
	var list string
	switch len(missing) {
	case 1:
		list = missing[0]
	case 2:
		list = missing[0] + " and " + missing[1]
	default:
		list = strings.Join(missing[:len(missing)-1], ", ") + ", and " + missing[len(missing)-1]
	}
	plural := "s"
	if len(missing) == 1 {
		plural = ""
	}
	return fmt.Sprintf("%s.invoke() missing %d required positional argument%s: %s", t.class, len(missing), plural, list)
}
