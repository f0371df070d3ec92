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
