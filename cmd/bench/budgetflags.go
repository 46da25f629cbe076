package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
)

// autoStart is where --concurrency auto starts: low enough not to trip a
// rate limit at once, and it doubles in a few windows when the server keeps up.
const autoStart = 4

// concurrencyValue is --concurrency: a number, or "auto" for an adaptive limit.
type concurrencyValue struct{ cfg *bench.Config }

func (v concurrencyValue) String() string {
	if v.cfg == nil {
		return ""
	}
	if v.cfg.ConcurrencyAuto {
		return "auto"
	}
	return strconv.Itoa(v.cfg.Concurrency)
}

func (v concurrencyValue) Set(s string) error {
	if s == "auto" {
		v.cfg.ConcurrencyAuto, v.cfg.Concurrency = true, autoStart
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a number of calls in flight or auto")
	}
	v.cfg.ConcurrencyAuto, v.cfg.Concurrency = false, n
	return nil
}

// budgetFlags registers the spending and concurrency flags of `bench run`
// (and `bench estimate`); the returned function loads the price file after
// parsing.
func budgetFlags(fs *flag.FlagSet, cfg *bench.Config) func() error {
	fs.Var(concurrencyValue{cfg}, "concurrency", "model calls in flight at most, or auto: adapt to the server (halve on 429/503 and Retry-After, grow by one per window of successes) up to --concurrency-max")
	cfg.ConcurrencyMax = 64
	fs.IntVar(&cfg.ConcurrencyMax, "concurrency-max", cfg.ConcurrencyMax, "with --concurrency auto: the most calls in flight")
	fs.Float64Var(&cfg.MaxCost, "max-cost", 0, "stop the run cleanly once its cost reaches this many US dollars (0: no ceiling); continue with bench resume RUN --max-cost HIGHER")
	prices := pricesFlag(fs)
	return func() error {
		ps, err := prices()
		if err != nil {
			return err
		}
		if ps != nil {
			cfg.Prices = ps
		}
		return nil
	}
}

// pricesFlag registers --prices; the returned function loads the file.
func pricesFlag(fs *flag.FlagSet) func() (llm.Prices, error) {
	path := fs.String("prices", "", "price file (JSON or YAML) {MODEL: {prompt: USD_per_1M, completion: USD_per_1M}} overriding the built-in table; it may price sim too")
	return func() (llm.Prices, error) {
		if *path == "" {
			return nil, nil
		}
		return llm.LoadPrices(*path)
	}
}

// maxCostFlag registers --max-cost for resume, where unset keeps the run's
// recorded ceiling.
type maxCostFlag struct{ v *float64 }

func (f *maxCostFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'f', -1, 64)
}

func (f *maxCostFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return fmt.Errorf("want US dollars, at least 0 (0: no ceiling)")
	}
	f.v = &v
	return nil
}
