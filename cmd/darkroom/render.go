package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

const renderSynopsis = `render IN OUT [--size N] [--op NAME[:ARG=V,ARG=V...]]... [--seed N] [--quality Q] [--format jpeg|png|tiff] [--depth 8|16]

Renders IN with catalog operations (darkroom contract export lists none of them;
see docs/operations.md) and writes OUT. Operations run in the engine's stage order,
whatever their order on the command line. Argument values are JSON where they parse
as JSON (1.5, true, [[0,0],[1,1]]) and strings otherwise (gaussian).
Example: darkroom render in.jpg out.jpg --size 1024 --op exposure:ev=0.7 --op vignette:amount=-0.4`

func (m *Main) render(args []string) error {
	fs := m.flags("render", renderSynopsis)
	var ops multiFlag
	fs.Var(&ops, "op", "an operation and its arguments, NAME:ARG=V,ARG=V (repeatable)")
	size := fs.Int("size", 0, "long edge of the output in pixels (0: full size)")
	seed := fs.Uint64("seed", 0, "seed of the random operations (grain, noise, cutout, random_crop)")
	quality := fs.Int("quality", 90, "JPEG quality, 1 to 100")
	format := fs.String("format", "", "jpeg, png or tiff (default: from OUT's extension)")
	depth := fs.Int("depth", 0, "PNG bit depth, 8 or 16 (default 8); TIFF is always 16-bit")
	in, out, err := parseTwoPaths(fs, args)
	if err != nil {
		return err
	}
	if *size < 0 {
		return usagef("--size must be positive, got %d", *size)
	}
	c, err := m.loadContract()
	if err != nil {
		return err
	}
	edits, err := parseOps(c, ops)
	if err != nil {
		return err
	}
	f, err := outputFormat(out, *format)
	if err != nil {
		return err
	}
	start := time.Now()
	data, err := os.ReadFile(in)
	if err != nil {
		return darkroom.Wrap(darkroom.NotFound, err, "read %s", in)
	}
	eo := engine.EncodeOptions{Format: f, Quality: *quality, Depth: *depth}
	var w, h int
	var warnings []string
	if *size == 0 {
		// Full size: the engine's export, which streams pixel-by-pixel edits
		// through the encoder in strips instead of holding full-size float images.
		err = workspace.WriteFileFrom(out, func(wr io.Writer) error {
			res, err := engine.Export(wr, data, edits, engine.ExportOptions{Encode: eo, Seed: *seed})
			w, h, warnings = res.Width, res.Height, res.Warnings
			return err
		})
	} else {
		w, h, warnings, err = renderSized(out, data, edits, eo, *size, *seed)
	}
	for _, msg := range warnings {
		fmt.Fprintf(m.Stderr, "darkroom: %s: %s\n", in, msg)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "wrote %s (%dx%d %s, %d operations) in %s\n", out, w, h, f, len(edits), time.Since(start).Round(time.Millisecond))
	return nil
}

// renderSized renders data at a long edge of at most size and writes it to out.
func renderSized(out string, data []byte, edits []engine.Edit, eo engine.EncodeOptions, size int, seed uint64) (w, h int, warnings []string, err error) {
	dopt := engine.DecodeOptions{}
	if !hasGeometry(edits) {
		// Sizes are fractions of the image, so rendering at the output size looks
		// the same as rendering at full size and shrinking afterwards.
		dopt.MaxLongEdge = size
	}
	src, err := engine.Decode(data, dopt)
	if err != nil {
		return 0, 0, nil, err
	}
	img, err := engine.Render(src.Image, edits, engine.RenderOptions{Seed: seed})
	if err != nil {
		return 0, 0, src.Warnings, err
	}
	eo.EXIF = src.EXIF
	if img.W > size || img.H > size {
		w, h := engine.FitLongEdge(img.W, img.H, size)
		img = engine.Resize(img, w, h)
	}
	var buf bytes.Buffer
	if err := engine.Encode(&buf, img, eo); err != nil {
		return 0, 0, src.Warnings, err
	}
	if err := workspace.WriteFile(out, buf.Bytes()); err != nil {
		return 0, 0, src.Warnings, darkroom.Wrap(darkroom.RenderError, err, "write %s", out)
	}
	return img.W, img.H, src.Warnings, nil
}

// parseOps turns --op flags into edits whose arguments the catalog checked and
// completed with defaults.
func parseOps(c *contract.Contract, ops []string) ([]engine.Edit, error) {
	var edits []engine.Edit
	for _, spec := range ops {
		name, argText, _ := strings.Cut(spec, ":")
		args := map[string]any{}
		for _, kv := range splitArgs(argText) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, usagef("--op %s: %q is not ARG=VALUE", spec, kv)
			}
			var x any
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				x = v
			}
			args[k] = x
		}
		checked, err := checkOperation(c, name, args)
		if err != nil {
			return nil, err
		}
		edits = append(edits, engine.Edit{Op: name, Args: checked, Strength: 1})
	}
	return edits, nil
}

// checkOperation checks and completes the arguments of a catalog operation with the
// contract (--op is the CLI's boundary: a stateless render's only check), and says a
// number outside its range as the range it must lie in: `exposure: ev: 9 is outside
// [-5, 5]`, not only the bound crossed.
func checkOperation(c *contract.Contract, op string, args map[string]any) (engine.Args, error) {
	checked, err := c.CheckOperation(op, args)
	if err == nil {
		return checked, nil
	}
	var de *darkroom.Error
	if !errors.As(err, &de) {
		return nil, err
	}
	ops, oerr := c.Operations()
	if oerr != nil {
		return nil, err
	}
	var spec *contract.Operation
	for i := range ops {
		if ops[i].Name == op {
			spec = &ops[i]
		}
	}
	fields, _ := de.Details["fields"].([]any)
	if spec == nil || len(fields) == 0 {
		return nil, err
	}
	for _, f := range fields {
		fm, _ := f.(map[string]any)
		path, _ := fm["path"].(string)
		old, _ := fm["message"].(string)
		for _, a := range spec.Args {
			x, isNum := args[path].(float64)
			if a.Name != path || a.Min == nil || a.Max == nil || !isNum || (x >= *a.Min && x <= *a.Max) {
				continue
			}
			m := fmt.Sprintf("%s: %s is outside [%s, %s]", path, formatNumber(x), formatNumber(*a.Min), formatNumber(*a.Max))
			fm["message"], fm["range"] = m, []any{*a.Min, *a.Max}
			de.Message = strings.Replace(de.Message, old, m, 1)
		}
	}
	return nil, de
}

// formatNumber prints a number as a person writes it: 5, -0.5, 1e-06.
func formatNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// splitArgs splits on commas outside brackets, so points=[[0,0],[1,1]] stays whole.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func hasGeometry(edits []engine.Edit) bool {
	for _, e := range edits {
		if st, _ := engine.OpStage(e.Op); st == "geometry" {
			return true
		}
	}
	return false
}

func outputFormat(out, format string) (string, error) {
	if format == "" {
		switch strings.ToLower(filepath.Ext(out)) {
		case ".jpg", ".jpeg":
			format = "jpeg"
		case ".png":
			format = "png"
		case ".tif", ".tiff":
			format = "tiff"
		default:
			return "", usagef("cannot tell the format of %s: give --format jpeg, png or tiff", out)
		}
	}
	switch format {
	case "jpeg", "png", "tiff":
		return format, nil
	}
	return "", usagef("--format %q: want jpeg, png or tiff", format)
}
