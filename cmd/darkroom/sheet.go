package main

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

const sheetSynopsis = `contact-sheet IN OUT [--cell N] [--quality Q]

Renders every operation of the catalog at its telling values (the examples in
contracts/operations.cue) on IN, labelled, in one image: a way to judge at a glance
that each operation does what a photographer would call it.`

func (m *Main) contactSheet(args []string) error {
	fs := m.flags("contact-sheet", sheetSynopsis)
	cell := fs.Int("cell", 240, "long edge of each panel in pixels")
	quality := fs.Int("quality", 88, "JPEG quality when OUT is a JPEG")
	in, out, err := parseTwoPaths(fs, args)
	if err != nil {
		return err
	}
	f, err := outputFormat(out, "")
	if err != nil {
		return err
	}
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	ops, err := c.Operations()
	if err != nil {
		return err
	}
	panels := []engine.Panel{{Label: "original"}}
	for _, op := range ops {
		for _, ex := range op.Examples {
			panels = append(panels, engine.Panel{
				Label: op.Name + ": " + ex.Label,
				Edits: []engine.Edit{{Op: op.Name, Args: ex.Args, Strength: 1}},
			})
		}
	}
	start := time.Now()
	data, err := os.ReadFile(in)
	if err != nil {
		return darkroom.Wrap(darkroom.NotFound, err, "read %s", in)
	}
	// Panels are small: decode straight to a proxy a little larger than a cell.
	src, err := engine.Decode(data, engine.DecodeOptions{MaxLongEdge: 2 * *cell})
	if err != nil {
		return err
	}
	sheet, err := engine.ContactSheet(src.Image, panels, *cell)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := engine.Encode(&buf, sheet, engine.EncodeOptions{Format: f, Quality: *quality}); err != nil {
		return err
	}
	if err := workspace.WriteFile(out, buf.Bytes()); err != nil {
		return darkroom.Wrap(darkroom.RenderError, err, "write %s", out)
	}
	fmt.Fprintf(m.Stdout, "wrote %s (%dx%d, %d panels) in %s\n", out, sheet.W, sheet.H, len(panels), time.Since(start).Round(time.Millisecond))
	return nil
}
