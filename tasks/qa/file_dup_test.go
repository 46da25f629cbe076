package qa

import (
	"strings"
	"testing"
)

// TestDuplicateQuestionsRefused checks that two rows known by one key (the
// same question and no id, or an id equal to an id-less row's question) are
// refused in one line naming both lines and the fix, while the same
// question under two ids is two rows.
func TestDuplicateQuestionsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, format, text string
		want               []string // nil: accepted
	}{
		{"sameq.jsonl", FormatJSONL, `{"question": "a?", "answer": "b"}` + "\n" + `{"question": "c?", "answer": "d"}` + "\n" + `{"question": "a?", "answer": "e"}`,
			[]string{"sameq.jsonl:3:", "same question is on line 1", "neither row has an id", `give each row its own "id"`}},
		{"sameq.csv", FormatCSV, "question,answer\nx,1\nx,1\n", []string{"sameq.csv:3:", "same question is on line 2", `own "id"`}},
		{"idthenq.jsonl", FormatJSONL, `{"id": "a?", "question": "z", "answer": "b"}` + "\n" + `{"question": "a?", "answer": "e"}`,
			[]string{"idthenq.jsonl:2:", "the id of line 1", `its own "id"`}},
		{"qthenid.jsonl", FormatJSONL, `{"question": "a?", "answer": "e"}` + "\n" + `{"id": "a?", "question": "z", "answer": "b"}`,
			[]string{"qthenid.jsonl:2:", `id "a?" is the question of line 1`, `its own "id"`}},
		{"ids.jsonl", FormatJSONL, `{"id": 1, "question": "a?", "answer": "b"}` + "\n" + `{"id": 2, "question": "a?", "answer": "b"}`, nil},
	} {
		rows, err := ParseData(tc.name, tc.format, []byte(tc.text), Fields{})
		if tc.want == nil {
			if err != nil || len(rows) != 2 {
				t.Errorf("%s: %d rows, %v; want both rows", tc.name, len(rows), err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: error spans lines: %q", tc.name, msg)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", tc.name, msg, w)
			}
		}
	}
}
