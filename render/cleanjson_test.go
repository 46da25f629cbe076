package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestCleanJSON(t *testing.T) {
	in := `{"b":0.16799999999999982,"a":[1,2.5,{"params_json":"{\"k\": 5}","sim_params":"not json","x":null,"t":true}],"s":"0.30000000000000004","params_json":""}`
	got, err := cleanJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":0.168,"a":[1,2.5,{"params_json":{"k":5},"sim_params":"not json","x":null,"t":true}],"s":"0.30000000000000004","params_json":""}`
	if string(got) != want {
		t.Errorf("cleanJSON:\n got %s\nwant %s", got, want)
	}
}

func TestWriteJSONRowsClean(t *testing.T) {
	var b bytes.Buffer
	rows := []Row{{RunID: 1, N: 1000, Accuracy: 0.16799999999999982, ParamsJSON: `{"k":10}`, SimParams: `{"skill":0.5}`}}
	if err := Write(&b, "json", rows); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`"accuracy": 0.168,`, `"params_json": {`, `"k": 10`, `"skill": 0.5`} {
		if !strings.Contains(s, want) {
			t.Errorf("report json lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "99999") {
		t.Errorf("float noise left:\n%s", s)
	}
}
