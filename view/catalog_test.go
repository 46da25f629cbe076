package view

import "github.com/reasonbench/reasonbench/bench"

// cat is what the pages read the tests' runs' tasks and strategies
// through, as cmd/bench wires it.
var cat = bench.Catalog{}
