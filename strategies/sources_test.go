package strategies

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestShellWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"python3 my.py --k 5", []string{"python3", "my.py", "--k", "5"}},
		{`python3 'my method.py'  "a b"`, []string{"python3", "my method.py", "a b"}},
		{`sh -c "echo \"hi\""`, []string{"sh", "-c", `echo "hi"`}},
		{`a\ b c`, []string{"a b", "c"}},
		{`x ''`, []string{"x", ""}},
		{"", nil},
	} {
		if got := shellWords(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("shellWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A program's sources are the files its command names outside the
// system's directories, each with its SHA-256; editing one changes its
// digest.
func TestProgramSources(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "my method.py")
	if err := os.WriteFile(script, []byte("print('a')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &program{cmd: `/usr/bin/python3 '` + script + `' --missing nofile.py ` + dir}
	got, err := p.Sources()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("print('a')\n"))
	want := map[string]string{script: hex.EncodeToString(sum[:])}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sources() = %v, want only the script (%v)", got, want)
	}
	if err := os.WriteFile(script, []byte("print('b')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _ := p.Sources()
	if again[script] == got[script] {
		t.Error("an edited script kept its digest")
	}
}
