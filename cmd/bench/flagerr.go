package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/reasonbench/reasonbench/suggest"
)

// parseFlags is fs.Parse without the usage dump on a mistake: -h prints
// the flags, a mistyped or malformed flag is one line (the closest flag
// named) for the caller to return as a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
		fs.PrintDefaults()
		return err
	}
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		name = strings.TrimLeft(name, "-")
		hint := ""
		if best := closestFlag(fs, name); best != "" {
			hint = fmt.Sprintf("did you mean --%s? ", best)
		}
		return fmt.Errorf("unknown flag --%s: %s(%s -h lists the flags)", name, hint, fs.Name())
	}
	return fmt.Errorf("%s (%s -h lists the flags)", strings.Join(strings.Fields(msg), " "), fs.Name())
}

// closestFlag is the flag of fs nearest to name in edit distance (at most
// a third of its length, at least 2 edits allowed), or "".
func closestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return suggest.Nearest(name, names)
}

// isHelp reports whether a subcommand's argument asks for its usage.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}
