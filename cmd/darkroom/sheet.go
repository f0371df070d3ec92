package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"darkroom"
	"darkroom/internal/engine"
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
	if err := writeFileAtomic(out, buf.Bytes()); err != nil {
		return darkroom.Wrap(darkroom.RenderError, err, "write %s", out)
	}
	fmt.Fprintf(m.Stdout, "wrote %s (%dx%d, %d panels) in %s\n", out, sheet.W, sheet.H, len(panels), time.Since(start).Round(time.Millisecond))
	return nil
}

// demoLooks are the vocabulary entries the demo renders on the sample photo.
var demoLooks = []string{"film_noir", "golden_hour", "teal_orange", "dramatic_sky"}

// demoRender renders the embedded sample photo with a few looks of the vocabulary,
// each checked through the catalog like any render, and writes them to
// darkroom-demo/ in the working directory.
func (m *Main) demoRender(context.Context) error {
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	v, err := m.loadVocab(c, nil)
	if err != nil {
		return err
	}
	dir := "darkroom-demo"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return darkroom.Wrap(darkroom.RenderError, err, "demo output")
	}
	start := time.Now()
	src, err := engine.Decode(darkroom.SamplePhoto, engine.DecodeOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "\nRendering the embedded sample photo (%dx%d) with looks from the vocabulary:\n", src.Width, src.Height)
	write := func(name string, img *engine.Image) (string, error) {
		var buf bytes.Buffer
		if err := engine.Encode(&buf, img, engine.EncodeOptions{Format: "jpeg", Quality: 90}); err != nil {
			return "", err
		}
		p := filepath.Join(dir, name+".jpg")
		return p, writeFileAtomic(p, buf.Bytes())
	}
	p, err := write("original", src.Image)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "  %-14s %s\n", "original", p)
	for _, name := range demoLooks {
		e, ok := v.Entry(name)
		if !ok {
			return darkroom.Errorf(darkroom.NotFound, "demo: no vocabulary entry %q", name)
		}
		var edits []engine.Edit
		for _, call := range e.Calls(nil) {
			args, err := c.CheckOperation(call.Op, call.Args)
			if err != nil {
				return err
			}
			edit := engine.Edit{Op: call.Op, Args: args, Strength: 1}
			if e.DefaultMask != "" {
				if mk, ok := v.Mask(e.DefaultMask); ok {
					edit.Mask, err = engine.DecodeMask(mk.Spec)
					if err != nil {
						return err
					}
				}
			}
			edits = append(edits, edit)
		}
		t0 := time.Now()
		img, err := engine.Render(src.Image, edits, engine.RenderOptions{Seed: 1})
		if err != nil {
			return fmt.Errorf("demo: %s: %w", name, err)
		}
		elapsed := time.Since(t0)
		p, err := write(name, img)
		if err != nil {
			return err
		}
		mask := ""
		if e.DefaultMask != "" {
			mask = ", masked by " + e.DefaultMask
		}
		fmt.Fprintf(m.Stdout, "  %-14s %s  (%d operations%s, rendered in %s)\n", name, p, len(edits), mask, elapsed.Round(time.Millisecond))
	}
	fmt.Fprintf(m.Stdout, "\nDone in %s. Open the files in %s/ to compare the looks.\n", time.Since(start).Round(time.Millisecond), dir)
	return nil
}
