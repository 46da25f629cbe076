package reading

import "testing"

func BenchmarkConsider(b *testing.B) {
	text := "Read these.\nContext:\nAnna Berg: Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902. She later moved to Munich, where she died in 1950.\nLindau: Lindau is a small town on the river Amper. It has a harbour and an old town hall.\nMunich: Munich is the capital of Bavaria. It lies on the Isar.\n\nQuestion: Which river flows through the town where Anna Berg opened her shop?"
	q, _, _ := ReadQuestion(text)
	r := Reading{Question: q, Passages: ReadPassages(text)}
	for b.Loop() {
		Consider(r)
	}
}
