package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/reasonbench/reasonbench/prompts"
)

// cmdPrompts is `bench prompts import --from tot|reflexion|debate|tau-bench SRC --out DIR`
// and `bench prompts export DIR`.
func cmdPrompts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{fmt.Errorf("want a subcommand: import --from tot|reflexion|debate|tau-bench SRC --out DIR, or export DIR")}
	}
	if isHelp(args[0]) {
		fmt.Fprintln(stderr, "usage: bench prompts import --from tot|reflexion|debate|tau-bench SRC --out DIR | bench prompts export DIR\n  import  a paper's prompt text from a checkout of its repository, as templates for --prompts DIR\n  export  the bundled templates, to edit (bench prompts import -h for flags)")
		return flag.ErrHelp
	}
	switch args[0] {
	case "import":
		fs := newFlags("prompts import", stderr)
		from := fs.String("from", "", "the reference repository: "+fmt.Sprint(prompts.PackNames()))
		out := fs.String("out", "", "the prompt folder to write (for --prompts)")
		// SRC may stand anywhere among the flags.
		pos, err := parseArgs(fs, args[1:])
		if err != nil {
			return err
		}
		if len(pos) > 1 {
			return usageError{fmt.Errorf("unexpected argument %q", pos[1])}
		}
		var src string
		if len(pos) == 1 {
			src = pos[0]
		}
		if *from == "" || src == "" || *out == "" {
			return usageError{fmt.Errorf("usage: bench prompts import --from tot|reflexion|debate|tau-bench SRC --out DIR")}
		}
		texts, err := prompts.ImportPack(*from, src)
		if err != nil {
			return usageError{err}
		}
		if err := prompts.WriteFolder(*out, texts); err != nil {
			return err
		}
		names := make([]string, 0, len(texts))
		for n := range texts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(stdout, "%s/%s.txt\n", *out, n)
		}
		return nil
	case "export":
		if len(args) != 2 || args[1] == "" || args[1][0] == '-' {
			return usageError{fmt.Errorf("usage: bench prompts export DIR")}
		}
		texts, err := prompts.Export()
		if err != nil {
			return err
		}
		if err := prompts.WriteFolder(args[1], texts); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d templates to %s\n", len(texts), args[1])
		return nil
	}
	return usageError{fmt.Errorf("unknown subcommand %q: import or export", args[0])}
}
