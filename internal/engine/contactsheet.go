package engine

import (
	"image"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Panel is one picture of a contact sheet: the edits to render and the label printed
// under the result.
type Panel struct {
	Label string
	Edits []Edit
}

// Contact sheet limits: cells must be big enough to judge and small enough that a sheet
// of many panels stays within memory.
const (
	minCell        = 16
	maxCell        = 4096
	maxSheetPixels = 100_000_000
	sheetSeed      = 1 // the sheet is a fixed picture: its random operations use one seed
	labelLines     = 2
)

// Linear-light colours of the sheet.
const (
	sheetBackground = 0.012 // dark grey, so neither dark nor bright panels vanish into it
	sheetText       = 0.8
)

// ContactSheet renders each panel's edits on src scaled so its long edge is cell pixels,
// and lays the results out in a grid of boxes of that scaled size, each with its label
// (word wrapped to two lines, ASCII; longer labels are cut with "...") under it, on a
// dark background. Panels that geometry made smaller are centred in their box; a
// quarter turn is shrunk to fit it. The grid is
// about as wide as tall. Random operations use a fixed seed, so the sheet is
// reproducible. Edits need a strength (1 for the full effect), as in Render.
//
// cell is in [16, 4096]. Errors: invalid_input for no panels or a bad cell size,
// limit_exceeded for a sheet over 100 megapixels, and any error of Render, prefixed
// with the panel's label.
func ContactSheet(src *Image, panels []Panel, cell int) (*Image, error) {
	if err := checkImage(src); err != nil {
		return nil, err
	}
	if len(panels) == 0 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "contact sheet: no panels")
	}
	if cell < minCell || cell > maxCell {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "contact sheet: cell %d is outside [%d, %d]", cell, minCell, maxCell)
	}
	bw, bh := FitLongEdge(src.W, src.H, cell)
	scale := max(1, cell/256) // basicfont is 7x13; larger cells get it enlarged
	face := basicfont.Face7x13
	lineH := face.Metrics().Height.Ceil()
	pad := max(2, cell/32)
	labelH := (labelLines*lineH + 4) * scale
	tileW, tileH := bw+2*pad, bh+labelH+2*pad
	n := len(panels)
	cols := min(n, max(1, int(math.Ceil(math.Sqrt(float64(n)*float64(tileH)/float64(tileW))))))
	rows := (n + cols - 1) / cols
	if int64(cols*tileW)*int64(rows*tileH) > maxSheetPixels {
		return nil, darkroom.Errorf(darkroom.LimitExceeded, "contact sheet: %d panels of %d px make a %dx%d sheet, over %d pixels",
			n, cell, cols*tileW, rows*tileH, maxSheetPixels)
	}
	sheet := NewImage(cols*tileW, rows*tileH)
	for i := range sheet.Pix {
		sheet.Pix[i] = sheetBackground
	}
	base := Resize(src, bw, bh)
	for i, p := range panels {
		img, err := Render(base, p.Edits, RenderOptions{Seed: sheetSeed})
		if err != nil {
			return nil, darkroom.Wrap(darkroom.Code(err), err, "contact sheet panel %q", p.Label)
		}
		if img.W > bw || img.H > bh {
			// A quarter turn makes a landscape panel portrait: fit it into the box.
			k := min(float64(bw)/float64(img.W), float64(bh)/float64(img.H))
			img = Resize(img, max(1, int(float64(img.W)*k)), max(1, int(float64(img.H)*k)))
		}
		x0 := (i%cols)*tileW + pad
		y0 := (i/cols)*tileH + pad
		paste(sheet, img, x0+(bw-img.W)/2, y0+(bh-img.H)/2)
		drawLabel(sheet, p.Label, face, scale, x0, y0+bh+2*scale, bw, lineH)
	}
	return sheet, nil
}

// paste copies img into dst with its top left corner at (x0, y0).
func paste(dst, img *Image, x0, y0 int) {
	for y := range img.H {
		copy(dst.Pix[3*((y0+y)*dst.W+x0):], img.Pix[3*y*img.W:3*(y+1)*img.W])
	}
}

// drawLabel prints label into dst below a cell: at most labelLines lines of width
// pixels, the font enlarged scale times.
func drawLabel(dst *Image, label string, face font.Face, scale, x0, y0, width, lineH int) {
	d := &font.Drawer{Face: face}
	lines := wrapLabel(label, width/scale, func(s string) int { return d.MeasureString(s).Ceil() })
	mask := image.NewAlpha(image.Rect(0, 0, width/scale, labelLines*lineH))
	d.Dst, d.Src = mask, image.Opaque
	for i, l := range lines {
		tw := d.MeasureString(l).Ceil()
		d.Dot = fixed.P((width/scale-tw)/2, i*lineH+face.Metrics().Ascent.Ceil())
		d.DrawString(l)
	}
	b := mask.Bounds()
	for y := range b.Dy() * scale {
		for x := range b.Dx() * scale {
			a := float32(mask.AlphaAt(x/scale, y/scale).A) / 255
			if a == 0 {
				continue
			}
			i := 3 * ((y0+y)*dst.W + x0 + x)
			for c := range 3 {
				dst.Pix[i+c] += (sheetText - dst.Pix[i+c]) * a
			}
		}
	}
}

// wrapLabel splits s at spaces into at most labelLines lines no wider than width (as
// measured), cutting a word that alone is too wide and ending the last line with "..."
// when text remains. Non-ASCII runes become '?', which the font has.
func wrapLabel(s string, width int, measure func(string) int) []string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
	words := strings.Fields(s)
	var lines []string
	cur := ""
	for len(words) > 0 {
		w := words[0]
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if measure(next) <= width {
			cur, words = next, words[1:]
			continue
		}
		if cur == "" { // one word wider than the line: cut it
			k := len(w)
			for k > 1 && measure(w[:k]) > width {
				k--
			}
			cur, words[0] = w[:k], w[k:]
			if words[0] == "" {
				words = words[1:]
			}
		}
		lines = append(lines, cur)
		cur = ""
		if len(lines) == labelLines {
			break
		}
	}
	if cur != "" && len(lines) < labelLines {
		lines = append(lines, cur)
	}
	if len(words) > 0 && len(lines) == labelLines {
		last := lines[labelLines-1]
		for len(last) > 0 && measure(last+"...") > width {
			last = last[:len(last)-1]
		}
		lines[labelLines-1] = last + "..."
	}
	return lines
}
