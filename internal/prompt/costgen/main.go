// Command costgen measures what each engine operation costs and writes the table the
// prompt parser's estimated_execution_time reads (internal/prompt/costs.json):
//
//	go run ./internal/prompt/costgen -o internal/prompt/costs.json
//
// Each operation of the catalog is rendered alone, at the arguments of its first
// catalog example, on the embedded sample photo resized to 1024 px on the long edge,
// with every core the machine has; the table keeps the median of several runs, in
// nanoseconds per pixel, and how the numbers were taken. Re-run it after changing an
// operation's implementation, or to describe another machine.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

func main() {
	out := flag.String("o", "", "write the table here (default: stdout)")
	runs := flag.Int("runs", 7, "renders per operation; the median is kept")
	long := flag.Int("size", 1024, "long edge of the measured image, in pixels")
	flag.Parse()
	if err := run(*out, *runs, *long); err != nil {
		fmt.Fprintln(os.Stderr, "costgen:", err)
		os.Exit(1)
	}
}

// Table is the file's shape; internal/prompt decodes the same fields.
type Table struct {
	About      string             `json:"about"`
	Regenerate string             `json:"regenerate"`
	Width      int                `json:"width"`
	Height     int                `json:"height"`
	Cores      int                `json:"cores"`
	GOARCH     string             `json:"goarch"`
	Runs       int                `json:"runs"`
	NsPerPixel map[string]float64 `json:"ns_per_pixel"`
}

func run(out string, runs, long int) error {
	c, err := contract.Load(darkroom.Files)
	if err != nil {
		return err
	}
	src, err := engine.Decode(darkroom.SamplePhoto, engine.DecodeOptions{MaxLongEdge: long})
	if err != nil {
		return fmt.Errorf("decode the sample photo: %w", err)
	}
	img := src.Image
	w, h := engine.FitLongEdge(img.W, img.H, long)
	if w != img.W || h != img.H {
		img = engine.Resize(img, w, h)
	}
	ops, err := c.Operations()
	if err != nil {
		return err
	}
	t := Table{
		About:      "median engine time of one operation alone, at its first catalog example's arguments, per pixel of the image it ran on",
		Regenerate: "go run ./internal/prompt/costgen -o internal/prompt/costs.json",
		Width:      img.W, Height: img.H, Cores: runtime.GOMAXPROCS(0), GOARCH: runtime.GOARCH, Runs: runs,
		NsPerPixel: map[string]float64{},
	}
	pixels := float64(img.W * img.H)
	for _, op := range ops {
		if len(op.Examples) == 0 {
			continue
		}
		args, err := c.CheckOperation(op.Name, op.Examples[0].Args)
		if err != nil {
			return fmt.Errorf("%s: %w", op.Name, err)
		}
		edits := []engine.Edit{{Op: op.Name, Args: args, Strength: 1}}
		if _, err := engine.Render(img, edits, engine.RenderOptions{Seed: 1}); err != nil {
			return fmt.Errorf("%s: %w", op.Name, err)
		}
		times := make([]time.Duration, runs)
		for i := range times {
			start := time.Now()
			if _, err := engine.Render(img, edits, engine.RenderOptions{Seed: uint64(i + 1)}); err != nil {
				return fmt.Errorf("%s: %w", op.Name, err)
			}
			times[i] = time.Since(start)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		ns := float64(times[len(times)/2].Nanoseconds()) / pixels
		t.NsPerPixel[op.Name] = float64(int64(ns*100+0.5)) / 100
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return err
	}
	if out == "" {
		_, err := os.Stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
