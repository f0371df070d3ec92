package engine

import (
	darkroom "github.com/darkroom-mcp/darkroom"
)

// rowOps are the operations whose run returns src, or mapRows' result with a
// function that computes each pixel from the same pixel alone, reading it before
// writing it, and that take nothing from its position. An unmasked run of them
// renders as one pass (see rowChain). TestRowChain holds each to that.
var rowOps = map[string]bool{
	"exposure": true, "tone": true, "contrast": true, "curve": true, "gamma": true, "random_tone_curve": true,
}

// rowChain holds the row functions of consecutive unmasked row operations, to run
// in one pass: each block of rows goes through all of them while it is in cache,
// where one pass per operation would stream the whole image through memory each
// time and allocate an image for each. Every value goes through the same
// arithmetic in the same order, so the pixels are the same.
type rowChain struct{ fns []func(d, s []float32) }

// chainBlock is about how many bytes of rows a block holds: within a core's L2.
const chainBlock = 192 << 10

// run applies the pending functions to cur and returns the result: cur itself,
// changed in place, when the render owns it (it is not src, or own), else a new
// image from pool.
func (c *rowChain) run(cur, src *Image, own bool, pool *bufPool) *Image {
	if len(c.fns) == 0 {
		return cur
	}
	fns := c.fns
	c.fns = nil
	out := cur
	if cur == src && !own {
		out = &Image{W: cur.W, H: cur.H, Pix: pool.get(len(cur.Pix))}
	}
	row := 3 * cur.W
	step := max(1, chainBlock/(4*row))
	parallelRows(cur.H, func(lo, hi int) {
		for y := lo; y < hi; y += step {
			e := min(y+step, hi)
			d := out.Pix[y*row : e*row]
			fns[0](d, cur.Pix[y*row:e*row])
			for _, f := range fns[1:] {
				f(d, d)
			}
		}
	})
	return out
}

// postRows returns the row functions of the unmasked row operations at the start
// of rest (render order) and how many edits they span, for the geometry operation
// before them to run on its rows (runCtx.post); none when rest does not start with
// one. A row operation hands its function over without reading its image (the
// rowOps protocol), so cur, the image before the geometry, serves.
func postRows(edits []Edit, rest []int, occ []int, opt RenderOptions, fr frame, pool *bufPool, cur *Image) ([]func(d, s []float32), int, error) {
	var c rowChain
	n := 0
	for _, j := range rest {
		e := edits[j]
		if e.Strength != 0 && !chainable(e, opt.pre[j]) {
			break
		}
		n++
		if e.Strength == 0 {
			continue
		}
		rc := &runCtx{key: editKey(opt.Seed, e.Op, occ[j]), pool: pool, frame: fr, bilinear: opt.Interpolation == "linear"}
		if err := chainRowOp(rc, &c, e, j, cur); err != nil {
			return nil, 0, err
		}
	}
	if len(c.fns) == 0 {
		return nil, 0, nil
	}
	return c.fns, n, nil
}

// chainable reports whether edit e (pre, its precomputed pass) runs as part of a
// rowChain: an unmasked row operation at full strength.
func chainable(e Edit, pre any) bool {
	return rowOps[e.Op] && e.Mask == nil && e.Strength == 1 && pre == nil
}

// chainRowOp has the row operation e (edit i) hand its function to c instead of
// rendering; cur is the image it would render.
func chainRowOp(rc *runCtx, c *rowChain, e Edit, i int, cur *Image) error {
	rc.chain = c
	out, err := catalog[e.Op].run(rc, cur, e.Args)
	if err != nil {
		return darkroom.Wrap(darkroom.Code(err), err, "edit %d (%s)", i, e.Op)
	}
	if out != cur {
		return darkroom.Errorf(darkroom.InternalError, "edit %d (%s): a row operation rendered an image of its own", i, e.Op)
	}
	return nil
}
