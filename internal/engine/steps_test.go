package engine

import (
	"fmt"
	"testing"
)

// RenderSteps renders a pipeline as Render renders each step on the previous
// step's result, bit for bit, in the order given (not stage order), each step
// under its own options: with flips held for the warp after them or not, with the
// source lent or given, and with steps that fail skipped and reported in order,
// leaving the image as it was.
func TestRenderStepsSameAsStepByStep(t *testing.T) {
	src := opShrink(opPhoto(t, "coffee"), 4)
	lin := func(seed uint64) RenderOptions { return RenderOptions{Seed: seed, Interpolation: "linear"} }
	flipH := Step{[]Edit{opEdit("flip", opArgs(t, "flip", map[string]any{"horizontal": true}))}, lin(1)}
	flipV := Step{[]Edit{opEdit("flip", opArgs(t, "flip", map[string]any{"horizontal": false, "vertical": true}))}, lin(2)}
	rotate := Step{[]Edit{opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 13.0}))}, lin(3)}
	rotateCubic := Step{rotate.Edits, RenderOptions{Seed: 3}}
	affine := Step{[]Edit{opSample(t, "affine")}, lin(4)}
	tone := Step{[]Edit{opSample(t, "exposure"), opSample(t, "contrast")}, lin(5)}
	blur := Step{[]Edit{opSample(t, "blur")}, lin(6)}
	noise := Step{[]Edit{opSample(t, "noise")}, lin(7)}
	noise2 := Step{[]Edit{opSample(t, "noise")}, lin(8)}
	crop := Step{[]Edit{opSample(t, "crop")}, lin(9)}
	// Steps that fail: an argument missing after edits that would have rendered.
	badTone := Step{[]Edit{opSample(t, "exposure"), {Op: "contrast", Args: Args{}, Strength: 1}}, lin(10)}
	badBlur := Step{[]Edit{opSample(t, "exposure"), {Op: "blur", Args: Args{}, Strength: 1}}, lin(13)}
	badWarp := Step{[]Edit{{Op: "affine", Args: Args{}, Strength: 1}}, lin(11)}
	// Stage order inside a step, the recipe's order across steps: noise before crop.
	mixed := Step{[]Edit{opSample(t, "noise"), opSample(t, "crop")}, lin(12)}
	pipelines := [][]Step{
		{flipH, rotate, tone, blur, noise},
		{noise, crop, tone, noise2},
		{flipV, affine, tone},
		{flipH, flipV, rotate, blur},
		{flipH, badWarp, rotate},
		{flipH, rotateCubic},
		{tone, badTone, tone},
		{tone, badBlur, noise},
		{rotate, flipH},
		{blur, mixed, flipV},
		{flipH},
		{badTone},
		{},
	}
	for pi, steps := range pipelines {
		// The reference: each step rendered with Render on the result before it.
		want := src
		var wantErrs []string
		for _, s := range steps {
			out, err := Render(want, s.Edits, s.Opt)
			wantErrs = append(wantErrs, fmt.Sprint(err))
			if err == nil {
				want = out
			}
		}
		for _, fuse := range []bool{true, false} {
			for _, own := range []bool{false, true} {
				name := fmt.Sprintf("pipeline %d, fuse %v, own %v", pi, fuse, own)
				was := fuseFlips
				fuseFlips = fuse
				in := src
				if own {
					in = src.Clone()
				}
				k := 0
				var sizes [][2]int
				var errs []string
				got := RenderSteps(in, own, func(w, h int) (Step, bool) {
					if k == len(steps) {
						return Step{}, false
					}
					sizes = append(sizes, [2]int{w, h})
					k++
					return steps[k-1], true
				}, func(err error) { errs = append(errs, fmt.Sprint(err)) })
				fuseFlips = was
				sameImage(t, name, got, want)
				if fmt.Sprint(errs) != fmt.Sprint(wantErrs) {
					t.Errorf("%s: steps reported %v, want %v", name, errs, wantErrs)
				}
				if !own && got == src {
					t.Errorf("%s: the result is the lent source", name)
				}
				// Each step was asked for at the size the steps before it left.
				cur := src
				for i, s := range steps {
					if sizes[i] != [2]int{cur.W, cur.H} {
						t.Errorf("%s: step %d asked for at %v, want %dx%d", name, i, sizes[i], cur.W, cur.H)
					}
					if out, err := Render(cur, s.Edits, s.Opt); err == nil {
						cur = out
					}
				}
			}
		}
	}
	sameImage(t, "the lent source", src, opShrink(opPhoto(t, "coffee"), 4))
}
