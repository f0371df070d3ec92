package prompt

import "github.com/darkroom-mcp/darkroom/internal/resolve"

// Frames gives the parser the operations' argument defaults (the contract's
// OperationDefaults), so that a size in pixels is read against the image the steps
// before it leave, as albumentations reads each transform's pixels on the image it
// gets: in "longest side 640, pad to 640x640" the pad's 640 is of the resized image,
// in "random crop 384x384 and resize to 224x224" the resize's 224 of the crop. A step
// changes the frame only when it always runs and draws no size (a p below 1, a drawn
// scale or a group leave the frame as it was before it). Without Frames every pixel
// size is of the source image. Call it once, before the parser is shared.
func (p *Parser) Frames(defaults map[string]map[string]any) { p.defaults = defaults }

// frameAfter is opt with the image size the transforms ts leave, each in turn.
func (p *Parser) frameAfter(ts []Transform, opt Options) Options {
	if p.defaults == nil || opt.Width <= 0 || opt.Height <= 0 {
		return opt
	}
	for _, t := range ts {
		w, h, ok := p.sizeAfter(t, opt.Width, opt.Height)
		if ok {
			opt.Width, opt.Height = w, h
		}
	}
	return opt
}

// sizeAfter is the size a w x h image has after t, and whether t always leaves that
// size: it runs every time (p 1, in no group) and the ends of its ranges give one
// size (resolve.SizeRange), or it keeps the size whatever it draws.
func (p *Parser) sizeAfter(t Transform, w, h int) (int, int, bool) {
	e, ok := p.voc.Entry(t.Entry)
	if !ok {
		return w, h, false
	}
	nw, nh, ok := resolve.SizeRange(e, t.Values, t.Ranges, p.defaults, w, h)
	switch {
	case !ok:
		return w, h, false
	case nw == w && nh == h:
		return w, h, true
	case t.P < 1 || t.Group != nil:
		return w, h, false
	}
	return nw, nh, true
}
