package engine

import "testing"

// TestCachedLUT: a tone table taken from the cache is the one the arguments build:
// renders with arguments that differ in any one parameter, in any order, give what
// they give with an empty cache.
func TestCachedLUT(t *testing.T) {
	src := opPhotoSmall(t)
	var edits []Edit
	// A base and, for each parameter, the base with only that one changed.
	names := []string{"highlights", "shadows", "whites", "blacks"}
	for i := -1; i < len(names); i++ {
		a := Args{}
		for j, n := range names {
			a[n] = 0.2
			if j == i {
				a[n] = -0.3
			}
		}
		edits = append(edits, opEdit("tone", opArgs(t, "tone", a)))
	}
	for _, v := range []float64{0.3, -0.3, 0.5} {
		edits = append(edits, opEdit("contrast", opArgs(t, "contrast", Args{"amount": v})))
		edits = append(edits, opEdit("gamma", opArgs(t, "gamma", Args{"gamma": 1 + v})))
	}
	fresh := func(e Edit) *Image {
		lutCache.Lock()
		lutCache.m = nil
		lutCache.Unlock()
		return opRender(t, src, 1, e)
	}
	want := make([]*Image, len(edits))
	for i, e := range edits {
		want[i] = fresh(e)
	}
	for _, i := range []int{3, 0, 9, 2, 10, 1, 4, 6, 5, 8, 7} {
		got := opRender(t, src, 1, edits[i])
		if j, ok := sameBits(got.Pix, want[i].Pix); !ok {
			t.Errorf("%s %v from the cache differs at value %d", edits[i].Op, edits[i].Args, j)
		}
		if _, ok := sameBits(got.Pix, want[(i+1)%len(want)].Pix); ok {
			t.Errorf("%s %v renders as %v does", edits[i].Op, edits[i].Args, edits[(i+1)%len(edits)].Args)
		}
	}
}
