package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/view"
)

func cmdView(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("view", stderr)
	addr := fs.String("addr", "127.0.0.1:8090", "address to listen on (loopback unless --public)")
	public := fs.Bool("public", false, "allow a non-loopback --addr: anyone who can reach it can read every prompt and answer")
	open := fs.Bool("open", false, "open the viewer in the system browser (xdg-open)")
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkViewAddr(*addr, *public); err != nil {
		return usageError{err}
	}
	st, err := store.OpenReadOnly(ctx, *db)
	if err != nil {
		return usageError{err}
	}
	defer st.Close()
	h, err := view.New(st, bench.Catalog{})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usageError{fmt.Errorf("listen on %s: %w (pick a free --addr)", *addr, err)}
	}
	if *public {
		h.AnyHost()
	} else {
		host, _, _ := net.SplitHostPort(ln.Addr().String())
		h.AllowHosts(host)
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "bench view: %s (read-only) at %s — Ctrl-C to stop\n", *db, url)
	if *open {
		if path, err := exec.LookPath("xdg-open"); err == nil {
			cmd := exec.Command(path, url)
			// No key for the browser either; the X display's cookie
			// (XAUTHORITY, named like a credential) it needs.
			cmd.Env = secrets.Process.Environ(os.Environ())
			if x, ok := os.LookupEnv("XAUTHORITY"); ok {
				cmd.Env = append(cmd.Env, "XAUTHORITY="+x)
			}
			if err := cmd.Start(); err != nil {
				fmt.Fprintf(stderr, "bench view: xdg-open: %v; open %s yourself\n", err, url)
			}
		} else {
			fmt.Fprintf(stderr, "bench view: no xdg-open on PATH; open %s yourself\n", url)
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// checkViewAddr refuses a non-loopback address unless --public says the
// user means it: the viewer shows every prompt and answer, unauthenticated.
func checkViewAddr(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want host:port, e.g. 127.0.0.1:8090", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if !public {
		return fmt.Errorf("--addr %s is not a loopback address: the viewer has no authentication; add --public to serve it there anyway", addr)
	}
	return nil
}
