package augment

import "github.com/darkroom-mcp/darkroom/internal/engine"

// PeakFrame is the largest frame (by pixels) that variants 0 to count-1 of a w x h
// image pass through: it replays each variant's draws (which steps fire, their
// values) exactly as Variant makes them, without rendering, and follows the frame
// through their edits (engine.PeakFrame). A caller reserves pixel memory for a run
// from it before decoding anything. Steps that would be skipped count as nothing.
func (a *Augmenter) PeakFrame(w, h int, p Pipeline, seed uint64, count int) (int, int) {
	pw, ph := w, h
	var all []engine.Edit
	for n := range count {
		all = all[:0]
		for t, s := range p {
			e, ok := a.Vocab.Entry(s.Entry)
			if !ok {
				continue
			}
			key := stepKey(seed, n, t)
			values := sample(key, s, e)
			if !fires(key, s.P) {
				continue
			}
			edits, err := a.edits(e, values)
			if err != nil {
				continue
			}
			all = append(all, edits...)
		}
		if fw, fh := engine.PeakFrame(w, h, all); int64(fw)*int64(fh) > int64(pw)*int64(ph) {
			pw, ph = fw, fh
		}
	}
	return pw, ph
}
