package qa

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/tasks"
)

// Data is a data file read into rows, with the spec it was read by.
type Data struct {
	Info tasks.Dataset
	Spec Spec
	Rows []Row
	// specDir is the spec's folder, which its prompts folder is relative to.
	specDir string
	source  string // the path as given, for errors
}

// Formats of data files.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

// LoadFile reads a JSONL or CSV data file, mapped by the spec file at
// specPath ("" for the defaults). Every problem is reported as one line
// naming the file, the line and the fix.
func LoadFile(path, specPath string) (*Data, error) {
	d := &Data{source: path}
	if specPath != "" {
		spec, text, err := ReadSpec(specPath)
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(specPath)
		d.Spec, d.specDir = spec, filepath.Dir(abs)
		d.Info.Spec, d.Info.SpecSHA256, d.Info.SpecText = abs, tasks.SHA256(text), string(text)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("data file: %w; check the path after file:", err)
	}
	format := d.Spec.Format
	if format == "" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".jsonl", ".ndjson", ".json":
			format = FormatJSONL
		case ".csv":
			format = FormatCSV
		default:
			return nil, fmt.Errorf("%s: unknown format: name the file .jsonl or .csv, or set format: in a --task-spec file", path)
		}
	}
	d.Rows, err = ParseData(path, format, b, d.Spec.Fields)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(path)
	d.Info.Name = d.Spec.Name
	if d.Info.Name == "" {
		d.Info.Name = filepath.Base(path)
	}
	d.Info.Path, d.Info.SHA256, d.Info.Rows = abs, tasks.SHA256(b), len(d.Rows)
	return d, nil
}

// PromptDir is the spec's prompts folder as a path, or "".
func (d *Data) PromptDir() string {
	if d.Spec.Prompts == "" || filepath.IsAbs(d.Spec.Prompts) {
		return d.Spec.Prompts
	}
	return filepath.Join(d.specDir, d.Spec.Prompts)
}

// lineError is a problem at a line of a data file.
func lineError(name string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
}

// ParseData reads rows from a file's contents in the given format; name
// is used in errors.
func ParseData(name, format string, b []byte, f Fields) ([]Row, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark
	var recs []record
	var err error
	switch format {
	case FormatJSONL:
		recs, err = jsonlRecords(name, b)
	case FormatCSV:
		recs, err = csvRecords(name, b, f)
	default:
		return nil, fmt.Errorf("%s: format %q: want jsonl or csv", name, format)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no rows: the file is empty; write one question per line, e.g. {\"question\": \"...\", \"answer\": \"...\"}", name)
	}
	p := rowParser{name: name, f: f, kinds: map[string]kindSeen{}, ids: map[string]int{}, keys: map[string]keySeen{}}
	rows := make([]Row, 0, len(recs))
	for _, rec := range recs {
		r, err := p.row(rec)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// record is one row as read: field values (JSON values; CSV cells are
// text) and the line it starts on.
type record struct {
	line   int
	fields map[string]any
}

// maxErrText bounds input quoted in an error.
const maxErrText = 80

func jsonlRecords(name string, b []byte) ([]record, error) {
	var out []record
	line := 0
	for len(b) > 0 {
		line++
		var text []byte
		text, b, _ = bytes.Cut(b, []byte("\n"))
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		if err == nil && dec.More() {
			err = errors.New("more than one JSON value on the line")
		}
		if err != nil {
			return nil, lineError(name, line, "not a JSON object (%s); write one object per line, e.g. {\"question\": \"...\", \"answer\": \"...\"}", shortErr(err))
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, lineError(name, line, "%s, not an object; write one JSON object per line, e.g. {\"question\": \"...\", \"answer\": \"...\"}", article(kindOf(v)))
		}
		out = append(out, record{line: line, fields: obj})
	}
	return out, nil
}

func csvRecords(name string, b []byte, f Fields) ([]record, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.ReuseRecord = false
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	for i, h := range header {
		header[i] = strings.TrimSpace(strings.ToValidUTF8(h, "\uFFFD"))
	}
	multi := len(f.Choices) > 1
	var out []record
	for {
		cells, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		rec := record{line: line, fields: map[string]any{}}
		for i, c := range cells {
			rec.fields[header[i]] = strings.ToValidUTF8(c, "\uFFFD")
		}
		// A choices column holds a JSON list or "|"-separated choices.
		if ch := f.field("choices"); !multi {
			if s, ok := rec.fields[ch].(string); ok {
				rec.fields[ch] = csvChoices(s)
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// csvChoices reads a choices cell: a JSON list of texts, or texts
// separated by "|". An empty cell is no choices.
func csvChoices(s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if strings.HasPrefix(s, "[") {
		var v []any
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			return v
		}
	}
	var out []any
	for _, c := range strings.Split(s, "|") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		fix := "quote cells that hold commas, quotes or newlines (\"a, b\"; a quote inside is written \"\")"
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			fix = "give every row as many cells as the header has"
		}
		return lineError(name, pe.Line, "bad CSV: %v; %s", pe.Err, fix)
	}
	return fmt.Errorf("%s: bad CSV: %w", name, err)
}

// kindSeen is the type a field had where it was first seen.
type kindSeen struct {
	kind string
	line int
}

// rowParser turns records into rows, checking each field keeps one type.
type rowParser struct {
	name  string
	f     Fields
	kinds map[string]kindSeen
	ids   map[string]int // id → line
	keys  map[string]keySeen
}

// keySeen is the line of the row an instance key (its id, else its
// question) came from, and whether it was an id.
type keySeen struct {
	line int
	id   bool
}

func kindOf(v any) string {
	switch v.(type) {
	case string, json.Number:
		return "text"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// get returns a field's value (nil when absent or null), checking that its
// type is the one the field had on earlier rows.
func (p *rowParser) get(rec record, field string) (any, error) {
	key := p.f.field(field)
	v, ok := rec.fields[key]
	if !ok || v == nil {
		return nil, nil
	}
	k := kindOf(v)
	if (field == "answer" || field == "context") && k == "list" {
		k = "text" // one answer or passage, or a list of them, row by row
	}
	if seen, ok := p.kinds[key]; !ok {
		p.kinds[key] = kindSeen{k, rec.line}
	} else if seen.kind != k {
		return nil, lineError(p.name, rec.line, "%q is %s here but %s on line %d; give the field the same type on every row", key, article(kindOf(v)), article(seen.kind), seen.line)
	}
	return v, nil
}

// article puts "a" or "an" before a kind.
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

func (p *rowParser) missing(rec record, field, fix string) error {
	key := p.f.field(field)
	mapHint := ""
	if key == field {
		mapHint = fmt.Sprintf(" (or name the file's field with fields: {%s: NAME} in a --task-spec file)", field)
	}
	return lineError(p.name, rec.line, "no %q field; %s%s", key, fix, mapHint)
}

func textOf(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	}
	return "", false
}

func (p *rowParser) row(rec record) (Row, error) {
	r := Row{Line: rec.line}
	bad := func(format string, args ...any) (Row, error) {
		return Row{}, lineError(p.name, rec.line, format, args...)
	}
	v, err := p.get(rec, "question")
	if err != nil {
		return Row{}, err
	}
	if v == nil {
		return Row{}, p.missing(rec, "question", "every row needs the question text")
	}
	q, ok := textOf(v)
	if !ok {
		return bad("%q must be text, not a %s", p.f.field("question"), kindOf(v))
	}
	if r.Question = strings.TrimSpace(q); r.Question == "" {
		return bad("%q is empty; every row needs the question text", p.f.field("question"))
	}

	if v, err = p.get(rec, "answer"); err != nil {
		return Row{}, err
	}
	switch t := v.(type) {
	case nil:
		return Row{}, p.missing(rec, "answer", "every row needs its gold answer to be scored")
	case []any:
		for _, a := range t {
			s, ok := textOf(a)
			if !ok {
				return bad("%q: a list of answers must hold only texts, not a %s", p.f.field("answer"), kindOf(a))
			}
			r.Answers = append(r.Answers, strings.TrimSpace(s))
		}
	default:
		s, ok := textOf(v)
		if !ok {
			return bad("%q must be text (or a list of accepted answers), not a %s", p.f.field("answer"), kindOf(v))
		}
		r.Answers = []string{strings.TrimSpace(s)}
	}
	if len(r.Answers) == 0 || r.Answers[0] == "" {
		return bad("%q is empty; give the gold answer", p.f.field("answer"))
	}

	if v, err = p.get(rec, "context"); err != nil {
		return Row{}, err
	}
	if v != nil {
		if r.Context, err = paragraphs(v); err != nil {
			return bad("%q: %v", p.f.field("context"), err)
		}
	}

	if err := p.choices(rec, &r); err != nil {
		return Row{}, err
	}

	if v, err = p.get(rec, "id"); err != nil {
		return Row{}, err
	}
	if v != nil {
		id, ok := textOf(v)
		if !ok {
			return bad("%q must be text or a number, not a %s", p.f.field("id"), kindOf(v))
		}
		r.ID = strings.TrimSpace(id)
		if prev, dup := p.ids[r.ID]; dup && r.ID != "" {
			return bad("id %q is also on line %d; give every row its own id", truncate(r.ID, maxErrText), prev)
		}
		p.ids[r.ID] = rec.line
	}
	// A row is known by its id, else its question (Task.Instances): two
	// rows under one key would be one item in results, resume and merge.
	key, byID := r.ID, r.ID != ""
	if !byID {
		key = r.Question
	}
	if prev, dup := p.keys[key]; dup {
		idField := p.f.field("id")
		switch {
		case !byID && !prev.id:
			return bad("the same question is on line %d and neither row has an id; give each row its own %q, or drop the repeated row", prev.line, idField)
		case !byID:
			return bad("the question is the id of line %d, and this row has no id; give it its own %q", prev.line, idField)
		case !prev.id:
			return bad("id %q is the question of line %d, which has no id; give that row its own %q", truncate(key, maxErrText), prev.line, idField)
		}
	}
	p.keys[key] = keySeen{rec.line, byID}
	return r, nil
}

func (p *rowParser) choices(rec record, r *Row) error {
	var vals []any
	if len(p.f.Choices) > 1 { // one column per choice; empty cells dropped
		for _, name := range p.f.Choices {
			v, ok := rec.fields[name]
			if !ok {
				return lineError(p.name, rec.line, "no %q field (named under fields.choices)", name)
			}
			if s, ok := textOf(v); ok && strings.TrimSpace(s) == "" {
				continue
			}
			vals = append(vals, v)
		}
	} else {
		v, err := p.get(rec, "choices")
		if err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		list, ok := v.([]any)
		if !ok {
			return lineError(p.name, rec.line, "%q must be a list of choices, e.g. [\"red\", \"blue\"], not a %s", p.f.field("choices"), kindOf(v))
		}
		vals = list
	}
	for _, v := range vals {
		s, ok := textOf(v)
		if !ok {
			return lineError(p.name, rec.line, "choices must be texts, not a %s", kindOf(v))
		}
		r.Choices = append(r.Choices, strings.TrimSpace(s))
	}
	switch {
	case len(r.Choices) == 1:
		return lineError(p.name, rec.line, "only one choice; give at least two, or drop the choices")
	case len(r.Choices) > maxChoices:
		return lineError(p.name, rec.line, "%d choices; at most %d (A to Z)", len(r.Choices), maxChoices)
	}
	return nil
}

// paragraphs reads a context: a text (paragraphs separated by blank
// lines), or a list whose items are texts, {"title", "text"} objects
// ("sentences" or "paragraph" for "text"), or [title, text] and
// [title, [sentences]] pairs as in HotpotQA.
func paragraphs(v any) ([]Paragraph, error) {
	if s, ok := textOf(v); ok {
		var out []Paragraph
		for _, part := range splitBlank(s) {
			out = append(out, Paragraph{Text: part})
		}
		return out, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a text or a list of paragraphs, not a %s", kindOf(v))
	}
	var out []Paragraph
	for i, item := range list {
		p, err := paragraph(item)
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i+1, err)
		}
		if strings.TrimSpace(p.Text) != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

func paragraph(item any) (Paragraph, error) {
	switch t := item.(type) {
	case string, json.Number:
		s, _ := textOf(t)
		return Paragraph{Text: s}, nil
	case map[string]any:
		var p Paragraph
		if title, ok := t["title"]; ok {
			s, isText := textOf(title)
			if !isText {
				return p, errors.New(`"title" must be text`)
			}
			p.Title = strings.TrimSpace(s)
		}
		for _, k := range []string{"text", "sentences", "paragraph"} {
			if body, ok := t[k]; ok {
				s, err := bodyText(body)
				if err != nil {
					return p, fmt.Errorf("%q: %v", k, err)
				}
				p.Text = s
				return p, nil
			}
		}
		return p, errors.New(`want {"title": ..., "text": ...}`)
	case []any:
		if len(t) != 2 {
			return Paragraph{}, errors.New("want a [title, text] pair")
		}
		title, ok := textOf(t[0])
		if !ok {
			return Paragraph{}, errors.New("want a [title, text] pair with a text title")
		}
		s, err := bodyText(t[1])
		if err != nil {
			return Paragraph{}, err
		}
		return Paragraph{Title: strings.TrimSpace(title), Text: s}, nil
	}
	return Paragraph{}, fmt.Errorf("a %s is not a paragraph", kindOf(item))
}

// bodyText is a paragraph's text: a text, or a list of sentences joined
// as HotpotQA stores them (each keeps its own leading space).
func bodyText(v any) (string, error) {
	if s, ok := textOf(v); ok {
		return s, nil
	}
	list, ok := v.([]any)
	if !ok {
		return "", fmt.Errorf("want a text or a list of sentences, not a %s", kindOf(v))
	}
	var b strings.Builder
	for _, x := range list {
		s, ok := textOf(x)
		if !ok {
			return "", fmt.Errorf("sentences must be texts, not a %s", kindOf(x))
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// splitBlank splits text into paragraphs at blank lines, trimmed, empty
// ones dropped.
func splitBlank(s string) []string {
	var out, cur []string
	flush := func() {
		if p := strings.TrimSpace(strings.Join(cur, "\n")); p != "" {
			out = append(out, p)
		}
		cur = cur[:0]
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// shortErr bounds an error's text (JSON errors may quote input).
func shortErr(err error) string { return truncate(strings.ToValidUTF8(err.Error(), ""), 200) }

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
