package qa

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spec is a task-spec file (YAML): everything about a data file that is
// not the default. Every key is optional.
//
//	name: my-qa              # what tables call the data (default: the file name)
//	format: csv              # jsonl or csv (default: from the extension)
//	fields:                  # the file's names for the fields (default: the same names)
//	  question: q
//	  answer: gold
//	  context: passage
//	  choices: [A, B, C, D]  # one field holding a list, or one column per choice
//	  id: uid
//	scorer: exact            # exact, em_f1, numeric, choice, regex or math
//	normalize: squad         # exact: none, lower or squad
//	tolerance: 0.01          # numeric: absolute tolerance (default 0: exact)
//	rel_tolerance: 0.001     # numeric: relative tolerance
//	ignore_case: true        # regex: match case-insensitively
//	steps: 3                 # tot/mcts: lines of reasoning, the answer included
//	prompts: my-prompts      # folder of qa/<name>.txt templates, relative to the spec
type Spec struct {
	Name         string  `yaml:"name"`
	Format       string  `yaml:"format"`
	Fields       Fields  `yaml:"fields"`
	Scorer       string  `yaml:"scorer"`
	Normalize    string  `yaml:"normalize"`
	Tolerance    float64 `yaml:"tolerance"`
	RelTolerance float64 `yaml:"rel_tolerance"`
	IgnoreCase   bool    `yaml:"ignore_case"`
	Steps        int     `yaml:"steps"`
	Prompts      string  `yaml:"prompts"`
}

// Fields are the data file's names for the row fields.
type Fields struct {
	Question string `yaml:"question"`
	Answer   string `yaml:"answer"`
	Context  string `yaml:"context"`
	Choices  names  `yaml:"choices"`
	ID       string `yaml:"id"`
}

// names is one name or a list of names.
type names []string

// UnmarshalYAML takes a scalar or a sequence of scalars.
func (n *names) UnmarshalYAML(v *yaml.Node) error {
	switch v.Kind {
	case yaml.ScalarNode:
		*n = names{v.Value}
		return nil
	case yaml.SequenceNode:
		var out []string
		if err := v.Decode(&out); err != nil {
			return err
		}
		*n = out
		return nil
	}
	return fmt.Errorf("line %d: choices: want a field name or a list of field names", v.Line)
}

// specKeys are the keys a spec may have, for error messages.
const specKeys = "name, format, fields (question, answer, context, choices, id), scorer, normalize, tolerance, rel_tolerance, ignore_case, steps, prompts"

// maxSteps bounds the thought steps a spec may ask for.
const maxSteps = 20

// ReadSpec reads a spec file; text is its contents, for the record.
func ReadSpec(path string) (Spec, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, nil, fmt.Errorf("task spec: %w", err)
	}
	s, err := ParseSpec(filepath.Base(path), b)
	return s, b, err
}

// ParseSpec parses a spec's contents; name is used in errors.
func ParseSpec(name string, b []byte) (Spec, error) {
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) { // empty: all defaults
		msg := strings.Join(strings.Fields(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:")), " ")
		msg = strings.ReplaceAll(msg, "yaml: ", "")
		if strings.Contains(msg, "not found in type") {
			msg = strings.ReplaceAll(msg, " in type qa.Spec", "")
			msg = strings.ReplaceAll(msg, " in type qa.Fields", " under fields")
			msg += " (known keys: " + specKeys + ")"
		}
		return Spec{}, fmt.Errorf("%s: %s", name, msg)
	}
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
	switch s.Format {
	case "", "jsonl", "csv":
	default:
		return bad("format %q: want jsonl or csv", s.Format)
	}
	if s.Steps < 0 || s.Steps > maxSteps {
		return bad("steps %d: want 1 to %d (0: the default, %d)", s.Steps, maxSteps, defaultSteps)
	}
	if s.Tolerance < 0 || s.RelTolerance < 0 {
		return bad("tolerance: must be at least 0")
	}
	if len(s.Fields.Choices) > maxChoices {
		return bad("fields.choices: at most %d choice columns", maxChoices)
	}
	if s.Scorer != "" {
		if _, err := NewScorer(s.Scorer, s.options()); err != nil {
			return bad("%v", err)
		}
	}
	return s, nil
}

// options are the scorer options the spec sets.
func (s Spec) options() ScorerOptions {
	return ScorerOptions{Normalize: s.Normalize, Tolerance: s.Tolerance, RelTolerance: s.RelTolerance, IgnoreCase: s.IgnoreCase}
}

// field returns the file's name for a row field.
func (f Fields) field(name string) string {
	var v string
	switch name {
	case "question":
		v = f.Question
	case "answer":
		v = f.Answer
	case "context":
		v = f.Context
	case "id":
		v = f.ID
	case "choices":
		if len(f.Choices) == 1 {
			v = f.Choices[0]
		}
	}
	if v == "" {
		return name
	}
	return v
}
