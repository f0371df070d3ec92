package engine

// runCtx is what an operation gets besides its arguments: its random stream, the
// render's buffer pool and the frame its image is part of.
type runCtx struct {
	key   uint64
	pool  *bufPool
	frame frame
	// pre, when set, is what the first pass of a streamed render computed for this
	// edit over the whole image (a blurred block grid, filter coefficients); the
	// operation then renders its band from it instead of from its own rows.
	pre any
	// opName and plan serve the planning of a streamed render's geometry (see
	// streamGeometry).
	opName string
	plan   *geomPlan
	// region, for an operation of localOps, is the rectangle [x0, y0, x1, y1) of
	// the image its mask reaches: it returns an image of that rectangle only.
	region *[4]int
	// bilinear makes warps sample bilinearly (RenderOptions.Interpolation).
	bilinear bool
	// chain, when set, takes a row operation's function (mapRows) to run later
	// with the others of its run, instead of rendering it now.
	chain *rowChain
	// flip, when set, is a flip of the whole image not yet rendered: a bilinear
	// affine warp of that image takes it (see warpOf) and samples it mirrored.
	flip *heldFlip
	// post, when set, are the row functions of the row operations right after a
	// geometry operation; a warp takes them (postTaken) and runs them on its rows
	// as it samples them, so they need no pass of their own.
	post      []func(d, s []float32)
	postTaken bool
}

// frame places the image an operation sees in the whole picture: a band of rows of an
// export rendered strip by strip is rows y0 to y0+H of a w x h frame. The zero frame
// means the image is the whole picture. Band operations
// measure positions (vignette, masks, seeded noise) and sizes on the frame, so a band
// renders exactly the rows the whole image would.
type frame struct{ y0, w, h int }

func wholeFrame(m *Image) frame { return frame{0, m.W, m.H} }

// frameOf returns the frame src is part of.
func (rc *runCtx) frameOf(src *Image) frame {
	if rc == nil || rc.frame.w == 0 {
		return wholeFrame(src)
	}
	return rc.frame
}

// long returns the long edge of the frame src is part of: radii given as fractions
// of the long edge measure the same pixels on a band as on the whole image.
func (rc *runCtx) long(src *Image) float64 {
	f := rc.frameOf(src)
	return float64(max(f.w, f.h))
}

// image returns a w x h image whose pixels the caller must overwrite entirely.
func (rc *runCtx) image(w, h int) *Image {
	return &Image{W: w, H: h, Pix: rc.floats(3 * w * h)}
}

// floats returns scratch of n values with arbitrary contents.
func (rc *runCtx) floats(n int) []float32 {
	if rc == nil || rc.pool == nil {
		return make([]float32, n)
	}
	return rc.pool.get(n)
}

// release hands scratch back for reuse by later operations of the same render.
func (rc *runCtx) release(bufs ...[]float32) {
	if rc == nil || rc.pool == nil {
		return
	}
	for _, b := range bufs {
		rc.pool.put(b)
	}
}
