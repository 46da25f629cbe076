package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonTextKeys are fields that hold JSON as text in rows (typed parameters,
// simulator parameters); written out they are the JSON values themselves.
var jsonTextKeys = map[string]bool{"params_json": true, "sim_params": true}

// cleanJSON rewrites an encoded document, keeping its key order: numbers
// lose float noise (0.16799999999999982 → 0.168, see Round) and the fields
// of jsonTextKeys become JSON values instead of strings.
func cleanJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	// Per open container: whether it is an object, and whether the next
	// token is a key and whether a value was written.
	type frame struct{ object, wantKey, any bool }
	var stack []frame
	lastKey := ""
	sep := func() {
		if n := len(stack); n > 0 {
			f := &stack[n-1]
			if f.object && !f.wantKey {
				out.WriteByte(':')
				f.wantKey = true
				return
			}
			if f.any {
				out.WriteByte(',')
			}
			f.any = true
			if f.object {
				f.wantKey = false
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				sep()
				out.WriteRune(rune(d))
				stack = append(stack, frame{object: d == '{', wantKey: true})
			default:
				stack = stack[:len(stack)-1]
				out.WriteRune(rune(d))
			}
			continue
		}
		isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
		sep()
		switch v := tok.(type) {
		case string:
			if isKey {
				lastKey = v
			} else if jsonTextKeys[lastKey] && json.Valid([]byte(v)) && strings.TrimSpace(v) != "" {
				var c bytes.Buffer
				if err := json.Compact(&c, []byte(v)); err == nil {
					out.Write(c.Bytes())
					continue
				}
			}
			enc, _ := json.Marshal(v)
			out.Write(enc)
		case json.Number:
			s := v.String()
			if strings.ContainsAny(s, ".eE") {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, fmt.Errorf("number %s: %w", s, err)
				}
				enc, _ := json.Marshal(Round(f))
				s = string(enc)
			}
			out.WriteString(s)
		case bool:
			out.WriteString(strconv.FormatBool(v))
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), nil
}

// encodeJSON writes v indented, cleaned by cleanJSON.
func encodeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if b, err = cleanJSON(b); err != nil {
		return err
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, b, "", "  "); err != nil {
		return err
	}
	ind.WriteByte('\n')
	_, err = w.Write(ind.Bytes())
	return err
}
