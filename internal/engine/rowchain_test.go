package engine

import (
	"maps"
	"slices"
	"testing"
)

// TestRowChain: a run of unmasked row operations renders in one pass to exactly
// what each operation makes on its own, one after another; a masked one between
// them breaks the run and changes nothing either; the caller's image is never
// changed; and every operation of rowOps keeps the chain's protocol (it hands its
// function over and returns its input), so none renders out of order.
func TestRowChain(t *testing.T) {
	src := opPhoto(t, "coffee")
	keep := src.Clone()
	ops := slices.Sorted(maps.Keys(rowOps))
	const seed = 5
	// Each operation unchained, in render order (exposure is "light", the rest
	// "tone": the sorted names already run exposure where the renderer does).
	var edits []Edit
	want := src
	for _, op := range ops {
		e := opSample(t, op)
		if op == "exposure" {
			edits = append([]Edit{e}, edits...)
			continue
		}
		edits = append(edits, e)
	}
	for _, e := range edits {
		rc := &runCtx{key: editKey(seed, e.Op, 0), pool: &bufPool{}}
		out, err := catalog[e.Op].run(rc, want, e.Args)
		if err != nil {
			t.Fatal(err)
		}
		if out == want {
			t.Fatalf("%s: its sample arguments change nothing; the test needs ones that do", e.Op)
		}
		want = out

		chain := &rowChain{}
		rc = &runCtx{key: editKey(seed, e.Op, 0), pool: &bufPool{}, chain: chain}
		if got, err := catalog[e.Op].run(rc, src, e.Args); err != nil || got != src || len(chain.fns) != 1 {
			t.Errorf("%s with a chain: returned its input %v, %d functions, error %v; want its input and 1", e.Op, got == src, len(chain.fns), err)
		}
	}
	got, err := Render(src, edits, RenderOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := sameBits(got.Pix, want.Pix); !ok {
		t.Errorf("chained render differs at value %d: %v, one by one %v", i, got.Pix[i], want.Pix[i])
	}
	if _, ok := sameBits(src.Pix, keep.Pix); !ok {
		t.Error("the render changed its source")
	}
	order, err := renderOrder(edits)
	if err != nil {
		t.Fatal(err)
	}
	owned, err := renderOwned(src.Clone(), edits, order, RenderOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := sameBits(owned.Pix, want.Pix); !ok {
		t.Errorf("chained in place differs at value %d", i)
	}

	// A masked edit in the middle: rendered on its own, between two runs.
	masked := opSample(t, "contrast")
	masked.Mask = &Mask{Shape: &Shape{Kind: "ellipse", Center: [2]float64{0.4, 0.6}, RadiusX: 0.3, RadiusY: 0.2, Feather: 0.1}}
	split := []Edit{opSample(t, "exposure"), masked, opSample(t, "gamma")}
	got, err = Render(src, split, RenderOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	step := src
	for _, e := range split {
		if step, err = Render(step, []Edit{e}, RenderOptions{Seed: seed}); err != nil {
			t.Fatal(err)
		}
	}
	if i, ok := sameBits(got.Pix, step.Pix); !ok {
		t.Errorf("with a masked edit between: differs at value %d", i)
	}
}

// Row operations right after a warp run on its rows as it samples them
// (runCtx.post): the render is what rendering the warp and then the row
// operations gives, for each warp, a quarter turn (which does not warp), a flip the
// warp reads mirrored, a zero-strength edit among the row operations, bilinear or
// not, with the AVX2 loops (where the CPU has them) and without; and the row
// operations do not run twice.
func TestRowOpsAfterWarp(t *testing.T) {
	src := opPhoto(t, "chelsea")
	const seed = 9
	rows := []Edit{opSample(t, "exposure"), opSample(t, "contrast"), opSample(t, "random_tone_curve")}
	off := opSample(t, "gamma")
	off.Strength = 0
	rows = append(rows[:2], off, rows[2])
	quarter := opEdit("rotate", opArgs(t, "rotate", map[string]any{"angle": 90.0}))
	geo := map[string][]Edit{"quarter turn": {quarter}, "flip then rotate": {opSample(t, "flip"), opSample(t, "rotate")}}
	for _, op := range []string{"rotate", "affine", "perspective", "elastic", "grid_distortion", "lens_distortion"} {
		geo[op] = []Edit{opSample(t, op)}
	}
	simds := []bool{false}
	if useAVX2 {
		simds = append(simds, true) // else there are no AVX2 loops to turn on
	}
	for _, name := range slices.Sorted(maps.Keys(geo)) {
		for _, interp := range []string{"linear", "cubic"} {
			for _, simd := range simds {
				opt := RenderOptions{Seed: seed, Interpolation: interp}
				var got, warped, want *Image
				withAVX2(t, simd, func() {
					var err error
					if got, err = Render(src, append(slices.Clone(geo[name]), rows...), opt); err != nil {
						t.Fatal(err)
					}
					if warped, err = Render(src, geo[name], opt); err != nil {
						t.Fatal(err)
					}
					if want, err = Render(warped, rows, opt); err != nil {
						t.Fatal(err)
					}
				})
				if i, ok := sameBits(got.Pix, want.Pix); !ok || got.W != want.W {
					t.Errorf("%s, %s, AVX2 %v: differs at value %d from the warp rendered, then the row operations", name, interp, simd, i)
				}
			}
		}
	}
}
