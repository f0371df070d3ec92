package engine

// FrameSize returns the size of a w x h image after the geometry edits among edits,
// as Render with seed would make it, without rendering: the geometry maps say their
// output sizes. Edits of other stages leave the frame as it is. The errors are
// GeometryMaps's.
func FrameSize(w, h int, edits []Edit, seed uint64) (int, int, error) {
	maps, err := GeometryMaps(w, h, edits, RenderOptions{Seed: seed})
	if err != nil {
		return 0, 0, err
	}
	if len(maps) == 0 {
		return w, h, nil
	}
	last := maps[len(maps)-1]
	return last.OutW, last.OutH, nil
}
