// Command startup times how long an MCP server takes from exec to its first
// tools/list reply, the start-up a client waits for, or (with -exit) how long a
// command takes from exec to exit, the cost of one CLI call. It runs the command
// -n times and prints the median, minimum and maximum in milliseconds:
//
//	startup [-n 20] [-exit] -- COMMAND [ARG...]
//
// For a server it keeps stdin open until the reply has come, then closes it: some
// servers drop a reply still in flight when stdin closes first, which would time
// their exit instead. scripts/bench-startup.sh runs it.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

const requests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"startup","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

func main() {
	n := flag.Int("n", 20, "runs")
	exit := flag.Bool("exit", false, "time exec to exit, not to the tools/list reply")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startup [-n RUNS] [-exit] -- COMMAND [ARG...]")
		os.Exit(2)
	}
	var ms []float64
	for range *n {
		d, err := once(flag.Args(), *exit)
		if err != nil {
			fmt.Fprintf(os.Stderr, "startup: %s: %v\n", strings.Join(flag.Args(), " "), err)
			os.Exit(1)
		}
		ms = append(ms, float64(d.Microseconds())/1000)
	}
	slices.Sort(ms)
	med := ms[len(ms)/2]
	if len(ms)%2 == 0 {
		med = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
	}
	fmt.Printf("median %.1f ms  min %.1f  max %.1f  (%d runs)\n", med, ms[0], ms[len(ms)-1], len(ms))
}

func once(args []string, exit bool) (time.Duration, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if exit {
		cmd.Stdout = io.Discard
		start := time.Now()
		err := cmd.Run()
		if err != nil {
			return 0, fmt.Errorf("%v: %s", err, stderr.String())
		}
		return time.Since(start), nil
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	if _, err := io.WriteString(in, requests); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	var d time.Duration
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte(`{"jsonrpc":"2.0","id":2,`)) {
			d = time.Since(start)
			break
		}
	}
	in.Close()
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if d == 0 {
		return 0, fmt.Errorf("no tools/list reply: %s", stderr.String())
	}
	return d, nil
}
