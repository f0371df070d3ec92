package engine

// heldFlip is a flip renderFrameOwn holds back for the warp after it: flipping
// reads and writes every pixel, and the warp can read them mirrored instead.
type heldFlip struct {
	img      *Image // the image the flip applies to
	hor, ver bool
	taken    bool // a warp sampled img mirrored
}

// flipConsumers are the operations that render through warpOf with an affine map,
// each with what says whether its arguments warp (a rotation by a multiple of 90
// degrees turns the image instead); a flip just before one that will waits for it
// (see holdFlip).
var flipConsumers = map[string]func(Args) bool{
	"rotate": func(a Args) bool {
		r := args{a: a}
		angle := r.num("angle")
		return r.err == nil && !quarterTurn(angle)
	},
	"affine": func(Args) bool { return true },
}

// holdFlip returns the flip edit e as a held flip of cur when the next edit to
// run (rest, in render order) can take it: a whole-image render, an unmasked flip,
// a bilinear render on a CPU whose AVX2 warp loop reads mirrored, and an affine
// warp next. Otherwise nil, and the flip renders as usual.
func holdFlip(e Edit, edits []Edit, rest []int, rc *runCtx, cur *Image) *heldFlip {
	if !holdableFlip(e) || rc.frame != (frame{}) || rc.pre != nil || !rc.bilinear || !useAVX2 {
		return nil
	}
	r := args{a: e.Args}
	hor, ver := r.flag("horizontal"), r.flag("vertical")
	if r.err != nil || !hor && !ver {
		return nil
	}
	for _, j := range rest {
		if n := edits[j]; n.Strength != 0 {
			if !takesFlip(n) {
				return nil
			}
			return &heldFlip{img: cur, hor: hor, ver: ver}
		}
	}
	return nil
}

// takesFlip reports whether e's warp reads a held flip of its input, given a
// bilinear render on a CPU with the AVX2 warp loop.
func takesFlip(e Edit) bool {
	warps := flipConsumers[e.Op]
	return warps != nil && warps(e.Args)
}

// holdableFlip reports whether e is a flip a warp after it may take (flipTaken):
// unmasked, at full strength.
func holdableFlip(e Edit) bool { return e.Op == "flip" && e.Mask == nil && e.Strength == 1 }

// flipTaken reports whether an unmasked flip rendered with opt in one Render just
// before e costs nothing: e's warp then reads its input mirrored instead of a
// flipped copy (the pixels are the same either way). RenderSteps renders a step of
// such flips together with the step whose first edit is e.
func flipTaken(e Edit, opt RenderOptions) bool {
	return useAVX2 && opt.Interpolation == "linear" && e.Strength != 0 && takesFlip(e)
}
