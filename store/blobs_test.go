package store

import "testing"

// An id read before a collection never enters the memo of the generation
// after it: the blob may be gone.
func TestMemoIgnoresIdsOfAnOldGeneration(t *testing.T) {
	var m blobMemo
	var k memoKey
	m.checkGeneration(2)
	m.putIn(1, k, 7)
	if id, _ := m.get(k); id != 0 {
		t.Fatalf("id %d from generation 1 kept in generation 2", id)
	}
	m.putIn(2, k, 7)
	if id, _ := m.get(k); id != 7 {
		t.Fatalf("id %d, want 7", id)
	}
}
