package results

import "github.com/reasonbench/reasonbench/bench"

// cat is what the tests' runs' tasks and strategies are read through, as
// cmd/bench wires it.
var cat = bench.Catalog{}
