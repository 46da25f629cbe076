package bench

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An experiment file is decoded into structs whose fields are its keys,
// named by their yaml tags: decodeKeys walks a mapping in file order, so
// the first mistake in the file is the one reported, at its line, and a
// key the struct lacks is refused naming the ones it has.
//
// A field is the value itself or a pointer to where the value goes. Its
// type says how the value is read: text (string), a whole number (int,
// int64), a number (float64), a block of keys of its own (a struct), the
// node as it is (yaml.Node), or a syntax of its own (keyValue). Values are
// read from the nodes rather than by yaml's Node.Decode, which calls no
// decoder on an empty value (`seeds:`) but clears or skips the field.

// keyValue is a field type with a syntax of its own. decodeKey's error is
// about the value's node unless it is a nodeError.
type keyValue interface {
	decodeKey(n *yaml.Node) error
}

// notMapping is a block (a struct field) that says what it wants, or
// takes a short form, when the file gives it a scalar or a list.
type notMapping interface {
	notMapping(n *yaml.Node) error
}

// validator is a block checked as a whole once its keys are read.
type validator interface {
	validate() error
}

// fileError points at a line of an experiment file; file is filled in by
// ParseExperiment for errors from decodeKeys.
type fileError struct {
	file string
	line int
	msg  string
}

func (e fileError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

// inFile names the file of an error from decodeKeys.
func inFile(name string, err error) error {
	var fe fileError
	if errors.As(err, &fe) && fe.file == "" {
		fe.file = name
		return fe
	}
	return err
}

// nodeError is a value's error at a node inside it (an entry of a list, a
// key of a free mapping); sub extends the key path (".reasoning_effort").
type nodeError struct {
	node *yaml.Node
	sub  string
	err  error
}

func (e nodeError) Error() string { return e.err.Error() }

// keyNames lists the keys of a struct type, in field order.
func keyNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name := keyName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func keyName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// decodeKeys decodes the mapping n into the struct dst points to; path is
// the keys above it ("model"; "" at the top), for messages.
func decodeKeys(n *yaml.Node, path string, dst any) error {
	rv := reflect.ValueOf(dst).Elem()
	index := map[string]int{}
	for i := range rv.NumField() {
		if name := keyName(rv.Type().Field(i)); name != "" {
			index[name] = i
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := index[k.Value]
		if !ok {
			allowed := strings.Join(keyNames(rv.Type()), ", ")
			if path == "" {
				return fileError{line: k.Line, msg: fmt.Sprintf("unknown key %q (allowed: %s)", k.Value, allowed)}
			}
			return fileError{line: k.Line, msg: fmt.Sprintf("unknown key %s.%s (allowed: %s)", path, k.Value, allowed)}
		}
		field := rv.Field(f)
		if field.Kind() == reflect.Pointer {
			field = field.Elem()
		}
		if err := decodeValue(v, keyPath(path, k.Value), field.Addr().Interface()); err != nil {
			return err
		}
	}
	return nil
}

func keyPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decodeValue reads the value v of the key at path into dst, by dst's type.
func decodeValue(v *yaml.Node, path string, dst any) error {
	var err error
	switch d := dst.(type) {
	case keyValue:
		err = d.decodeKey(v)
	case *yaml.Node:
		*d = *v
	case *string:
		*d, err = scalarString(v)
	case *int:
		*d, err = scalarInt(v)
	case *int64:
		var i int
		i, err = scalarInt(v)
		*d = int64(i)
	case *float64:
		*d, err = scalarNumber(v)
	default:
		if reflect.TypeOf(dst).Elem().Kind() != reflect.Struct {
			panic(fmt.Sprintf("experiment file key %s: no decoder for %T", path, dst))
		}
		if v.Kind != yaml.MappingNode {
			err = errors.New("want a mapping")
			if nm, ok := dst.(notMapping); ok {
				err = nm.notMapping(v)
			}
			break
		}
		if err := decodeKeys(v, path, dst); err != nil {
			return err
		}
		if val, ok := dst.(validator); ok {
			err = val.validate()
		}
	}
	return keyError(v, path, err)
}

// keyError places the error of the value v of the key at path: at v, or
// at the node a nodeError names.
func keyError(v *yaml.Node, path string, err error) error {
	var fe fileError
	var ne nodeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return fe
	case errors.As(err, &ne):
		return fileError{line: ne.node.Line, msg: fmt.Sprintf("%s%s: %v", path, ne.sub, ne.err)}
	}
	return fileError{line: v.Line, msg: fmt.Sprintf("%s: %v", path, err)}
}

func scalarString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("want text")
	}
	return n.Value, nil
}

func scalarInt(n *yaml.Node) (int, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, fmt.Errorf("want a whole number, got %q", n.Value)
	}
	return strconv.Atoi(n.Value)
}

func scalarNumber(n *yaml.Node) (float64, error) {
	f, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!float" && n.Tag != "!!int") || err != nil {
		return 0, fmt.Errorf("want a number")
	}
	return f, nil
}
