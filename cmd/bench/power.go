package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/stats"
)

// powerResult is bench power's answer.
type powerResult struct {
	Items            int      `json:"items"`
	Delta            *float64 `json:"delta"` // the difference to detect; with --n the minimum detectable one (null: none)
	P0               *float64 `json:"p0,omitempty"`
	Discordant       float64  `json:"discordant"`
	DiscordantSource string   `json:"discordant_source"`
	Alpha            float64  `json:"alpha"`
	Power            float64  `json:"power"`
	Solved           string   `json:"solved"` // "items" or "delta"
	Method           string   `json:"method"`
}

func cmdPower(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("power", stderr)
	p0 := fs.Float64("p0", math.NaN(), "the baseline's accuracy (with --pilot: default the first run's)")
	delta := fs.Float64("delta", math.NaN(), "the paired difference in accuracy to detect, e.g. 0.05")
	n := fs.Int("n", 0, "instead of --delta: the items you have; prints the minimum detectable difference")
	discordant := fs.Float64("discordant", math.NaN(), "expected share of items on which the two disagree (default: as if they erred independently)")
	pilot := fs.String("pilot", "", "BASE,RUN: take the discordant share (and p0) from a pilot pair of runs on the same items")
	alpha := fs.Float64("alpha", 0.05, "two-sided significance level")
	power := fs.Float64("power", 0.8, "probability of detecting the difference")
	asJSON := fs.Bool("json", false, "print JSON {\"items\": N, ...}")
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["delta"] == set["n"]:
		return usageError{errors.New("give --delta D (items needed) or --n N (smallest detectable difference), one of them")}
	case set["discordant"] && set["pilot"]:
		return usageError{errors.New("--discordant and --pilot both give the discordant share: pass one")}
	case !(*alpha > 0 && *alpha < 1) || !(*power > 0 && *power < 1):
		return usageError{errors.New("--alpha and --power must lie between 0 and 1, e.g. --alpha 0.05 --power 0.8")}
	case set["n"] && *n < 1:
		return usageError{fmt.Errorf("--n %d: want a positive number of items", *n)}
	}
	res := powerResult{Alpha: *alpha, Power: *power, Method: "Connor (1987), McNemar's test on paired proportions"}
	psiFixed := math.NaN()
	switch {
	case set["discordant"]:
		psiFixed, res.DiscordantSource = *discordant, "given"
	case set["pilot"]:
		ids, err := parseRunIDs(*pilot)
		if err != nil || len(ids) != 2 {
			return usageError{fmt.Errorf("--pilot %q: want two run ids BASE,RUN", *pilot)}
		}
		st, err := openReading(ctx, *db)
		if err != nil {
			return err
		}
		defer st.Close()
		var pilotTask string
		for i, id := range ids {
			r, err := st.GetRun(ctx, id)
			if err != nil {
				return usageError{fmt.Errorf("--pilot %s: %w (bench list --db %s shows the runs)", *pilot, err, *db)}
			}
			if i > 0 && r.Task != pilotTask {
				return usageError{fmt.Errorf("--pilot %s: run %d is on %s and run %d on %s: give two runs of the same task", *pilot, ids[0], pilotTask, id, r.Task)}
			}
			pilotTask = r.Task
		}
		base, err := results.ItemScores(ctx, st, ids[0])
		if err != nil {
			return err
		}
		other, err := results.ItemScores(ctx, st, ids[1])
		if err != nil {
			return err
		}
		_, a, b := stats.Pair(other, base)
		if len(a) == 0 {
			return usageError{fmt.Errorf("--pilot %d,%d: the runs share no items", ids[0], ids[1])}
		}
		c := stats.ComparePaired(a, b, stats.Binary(a, b), render.Level)
		psiFixed = float64(c.RunOnly+c.BaselineOnly) / float64(c.N)
		res.DiscordantSource = fmt.Sprintf("pilot runs %d,%d (%d of %d items discordant)", ids[0], ids[1], c.RunOnly+c.BaselineOnly, c.N)
		if !set["p0"] {
			*p0, set["p0"] = c.BaselineAccuracy, true
		}
	default:
		res.DiscordantSource = "independence: p1(1-p0) + p0(1-p1), conservative when the two agree more than by chance"
		if !set["p0"] {
			return usageError{errors.New("no --p0: without --discordant or --pilot the discordant share is worked out from the baseline's accuracy --p0")}
		}
	}
	if set["p0"] {
		if !(*p0 >= 0 && *p0 <= 1) {
			return usageError{fmt.Errorf("--p0 %g: want an accuracy between 0 and 1", *p0)}
		}
		v := *p0
		res.P0 = &v
	}
	if set["discordant"] && !(psiFixed > 0 && psiFixed <= 1) {
		return usageError{fmt.Errorf("--discordant %g: want a share of items between 0 and 1", psiFixed)}
	}
	if set["pilot"] && psiFixed == 0 {
		return usageError{errors.New("--pilot: the two runs agree on every item, so the discordant share is 0; pass --discordant with a guess")}
	}
	if set["delta"] {
		res.Solved = "items"
		d := *delta
		res.Delta = &d
		psi := psiFixed
		if math.IsNaN(psi) {
			if p1 := *p0 + d; p1 < 0 || p1 > 1 {
				return usageError{fmt.Errorf("--p0 %g --delta %g: the other accuracy %g lies outside [0, 1]", *p0, d, p1)}
			}
			psi = stats.IndependentDiscordant(*p0, d)
		}
		res.Discordant = psi
		items, err := stats.ConnorItems(d, psi, *alpha, *power)
		if err != nil {
			if math.Abs(d) > psi {
				err = fmt.Errorf("%w; give a smaller --delta (at most %.3g) or a larger --discordant", err, psi)
			}
			return usageError{err}
		}
		res.Items = items
	} else {
		res.Solved, res.Items = "delta", *n
		psi := func(float64) float64 { return psiFixed }
		maxDelta := psiFixed
		if math.IsNaN(psiFixed) {
			psi = func(d float64) float64 { return stats.IndependentDiscordant(*p0, d) }
			maxDelta = 1 - *p0
			res.Discordant = math.NaN()
		} else {
			res.Discordant = psiFixed
		}
		if d, ok := stats.ConnorMDD(*n, psi, maxDelta, *alpha, *power); ok {
			d = render.Round(d)
			res.Delta = &d
			if math.IsNaN(res.Discordant) {
				res.Discordant = stats.IndependentDiscordant(*p0, d)
			}
		} else if math.IsNaN(res.Discordant) {
			res.Discordant = stats.IndependentDiscordant(*p0, maxDelta)
		}
	}
	res.Discordant = render.Round(res.Discordant)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if res.Solved == "items" {
		fmt.Fprintf(stdout, "items needed: %d to detect a paired difference of %g at alpha %g with power %g\n", res.Items, *res.Delta, res.Alpha, res.Power)
	} else if res.Delta != nil {
		fmt.Fprintf(stdout, "minimum detectable difference with %d items: %.3f at alpha %g with power %g\n", res.Items, *res.Delta, res.Alpha, res.Power)
	} else {
		fmt.Fprintf(stdout, "with %d items no difference is detectable at alpha %g with power %g\n", res.Items, res.Alpha, res.Power)
	}
	fmt.Fprintf(stdout, "discordant share %.4f (%s); %s\n", res.Discordant, res.DiscordantSource, res.Method)
	return nil
}
