package mathans

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestMATH500AnswersParse: the parser reads 489 of MATH-500's 500 gold
// answers into values or structures; the rest (names, words, numbers in
// other bases such as 52_8) compare as normalised text.
func TestMATH500AnswersParse(t *testing.T) {
	f, err := os.Open("../math500/data/math500_test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	parsed, n := 0, 0
	for sc.Scan() {
		var p struct{ Answer string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		n++
		if _, err := parseAnswer(Normalize(p.Answer), &budget{ctx: context.Background()}); err == nil {
			parsed++
		} else {
			t.Logf("as text: %s", p.Answer)
		}
	}
	if n != 500 || parsed < 489 {
		t.Errorf("%d of %d answers parse, want at least 489", parsed, n)
	}
}
