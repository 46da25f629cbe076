package tau

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func mustLoad(t testing.TB, domain, version string) *Domain {
	t.Helper()
	d, err := Load(domain, version)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testdata/SHA256SUMS is the shared data's own list of sums (the fixture
// builder's): every logical file of every version must be byte-identical
// to what it lists, whichever folder holds the copy here.
func TestEmbeddedFilesMatchSums(t *testing.T) {
	f, err := os.Open("testdata/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if ok {
			want[path] = sum
		}
	}
	checked := 0
	for _, domain := range Domains {
		for _, version := range Versions {
			for _, name := range files(domain) {
				b, err := readFile(domain, version, name)
				if err != nil {
					t.Fatal(err)
				}
				key := domain + "/" + name
				if strings.HasPrefix(name, "few_shot_data/") {
					key = name
				} else if version != VersionHead {
					key = "at-" + version + "/" + key
				}
				sum := sha256.Sum256(b)
				if got := hex.EncodeToString(sum[:]); got != want[key] {
					t.Errorf("%s@%s %s: sha256 %s, SHA256SUMS says %q", domain, version, name, got, want[key])
				}
				checked++
			}
		}
	}
	if checked != 2*(8+11) {
		t.Errorf("checked %d files", checked)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		domain  string
		tools   int
		splits  map[string]int
		fewShot int
		rules   int
	}{
		{"airline", 14, map[string]int{"test": 50}, 19, 0},
		{"retail", 16, map[string]int{"test": 115, "train": 500, "dev": 20}, 69, 7},
	}
	for _, tc := range tests {
		for _, v := range Versions {
			d := mustLoad(t, tc.domain, v)
			if d2 := mustLoad(t, tc.domain, v); d2 != d {
				t.Errorf("%s@%s parsed twice", tc.domain, v)
			}
			if got := len(d.Tools()); got != tc.tools {
				t.Errorf("%s@%s: %d tools, want %d", tc.domain, v, got, tc.tools)
			}
			for split, n := range tc.splits {
				ts, err := d.Tasks(split)
				if err != nil || len(ts) != n {
					t.Errorf("%s@%s %s: %d tasks, %v; want %d", tc.domain, v, split, len(ts), err, n)
				}
			}
			if _, err := d.Tasks("nope"); err == nil {
				t.Errorf("%s: split nope accepted", tc.domain)
			}
			if got := len(d.FewShot()); got != tc.fewShot {
				t.Errorf("%s: %d few-shot displays, want %d", tc.domain, got, tc.fewShot)
			}
			if got := len(d.Rules()); got != tc.rules {
				t.Errorf("%s: %d rules, want %d", tc.domain, got, tc.rules)
			}
			wiki, _ := readFile(tc.domain, v, "wiki.md")
			if d.Wiki() != string(wiki) || !strings.Contains(d.Wiki(), "policy") {
				t.Errorf("%s: wiki differs from wiki.md", tc.domain)
			}
			if !d.IsTerminal("transfer_to_human_agents") || d.IsTerminal("think") {
				t.Errorf("%s: terminate tool", tc.domain)
			}
		}
	}
	if _, err := Load("bank", VersionHead); err == nil {
		t.Error("domain bank accepted")
	}
	if _, err := Load("airline", "v2"); err == nil {
		t.Error("version v2 accepted")
	}
}

// The tools' JSON is tools.json's element with whitespace removed: same
// keys, order and text.
func TestToolJSON(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	raw, _ := readFile("airline", VersionHead, "tools.json")
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		t.Fatal(err)
	}
	tools := d.Tools()
	for i, e := range elems {
		squeezed := strings.Join(strings.Fields(string(e)), "")
		if strings.Join(strings.Fields(string(tools[i].JSON)), "") != squeezed {
			t.Errorf("tool %d: JSON %.80s differs from tools.json", i, tools[i].JSON)
		}
	}
	if tools[0].Name != "book_reservation" || tools[0].Description != "Book a reservation." {
		t.Errorf("first tool %q: %q", tools[0].Name, tools[0].Description)
	}
	if !strings.HasPrefix(string(tools[0].JSON), `{"type":"function","function":{"name":"book_reservation","description":"Book a reservation.","parameters":{`) {
		t.Errorf("JSON %.120s", tools[0].JSON)
	}
}

// What differs between the versions: the users' addresses, some
// instructions, three descriptions, the digest.
func TestVersionsDiffer(t *testing.T) {
	head := mustLoad(t, "retail", VersionHead)
	old := mustLoad(t, "retail", Version7362a17)
	args := json.RawMessage(`{"user_id": "yusuf_rossi_9620"}`)
	h, err := head.NewDB().Invoke("get_user_details", args)
	if err != nil {
		t.Fatal(err)
	}
	o, err := old.NewDB().Invoke("get_user_details", args)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, `"state": "PA"`) || strings.Contains(h, "province") {
		t.Errorf("head user: %.300s", h)
	}
	if !strings.Contains(o, `"province": "PA"`) || strings.Contains(o, `"state"`) {
		t.Errorf("7362a17 user: %.300s", o)
	}
	desc := func(d *Domain, name string) string {
		for _, tl := range d.Tools() {
			if tl.Name == name {
				return string(tl.JSON)
			}
		}
		return ""
	}
	if !strings.Contains(desc(head, "modify_user_address"), "The state, such as 'CA'.") ||
		!strings.Contains(desc(old, "modify_user_address"), "The province, such as 'CA'.") {
		t.Error("modify_user_address descriptions")
	}
	if desc(head, "get_order_details") != desc(old, "get_order_details") {
		t.Error("get_order_details should be the same at both versions")
	}
	ah, _ := mustLoad(t, "airline", VersionHead).Tasks("test")
	ao, _ := mustLoad(t, "airline", Version7362a17).Tasks("test")
	if !strings.HasPrefix(ao[0].Instruction, "You are mia_li_3668.") || !strings.HasPrefix(ah[0].Instruction, "Your user id is mia_li_3668.") {
		t.Errorf("instructions: %.40q / %.40q", ao[0].Instruction, ah[0].Instruction)
	}
	if head.DataDigest() == old.DataDigest() || len(head.DataDigest()) != 64 {
		t.Errorf("digests %s %s", head.DataDigest(), old.DataDigest())
	}
}

// Tasks hands out copies: changing one changes nothing shared.
func TestTasksAreCopies(t *testing.T) {
	d := mustLoad(t, "airline", VersionHead)
	a, _ := d.Tasks("test")
	want := string(a[0].Actions[0].Kwargs)
	a[0].Actions[0].Kwargs[2] = 'X'
	a[0].Outputs = append(a[0].Outputs, "x")
	b, _ := d.Tasks("test")
	if string(b[0].Actions[0].Kwargs) != want || len(b[0].Outputs) != 0 {
		t.Error("Tasks returned shared slices")
	}
	if !strings.HasPrefix(want, `{"user_id":"mia_li_3668","origin":"JFK"`) {
		t.Errorf("kwargs lost their order: %.60s", want)
	}
}
