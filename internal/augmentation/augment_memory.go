package augmentation

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// What an augment_image call holds, and how it is kept within the decode budget.
//
// The call reserves its working set from the decode budget (engine.Reserve) before
// it decodes anything, computed from the source's header and the recipe: the
// decode (the decoder's image and the float source, kept for every variant), the
// label mask, and one variant at a time at the largest frame any variant reaches
// (augment.Augmenter.PeakFrame): the image being rendered, its render and a scratch
// image, and the encoder's 8-bit copy. Variants are encoded straight into their
// files, so neither the pixels nor the bytes of one variant outlive the next: the
// reservation does not depend on count. Over the budget is limit_exceeded; beside
// other calls it waits, as a decode does.

// augmentInput is the image an augmentation reads, before any pixel is decoded:
// its bytes and header, and for a workspace image the edits of its version.
type augmentInput struct {
	req    AugmentRequest
	data   []byte
	header engine.Header
	// edits is nil for a file (path or image_b64), and the version's edits (maybe
	// none, but not nil) for a workspace image.
	edits []engine.Edit
	what  string // how errors name the image
	hash  string // a workspace image's version
}

// augmentInput reads the request's image and its header.
func (s *Service) augmentInput(ws *workspace.Workspace, req AugmentRequest) (*augmentInput, error) {
	given := 0
	for _, ok := range []bool{req.ImageID != "", req.Path != "", req.Data != nil} {
		if ok {
			given++
		}
	}
	if given != 1 {
		return nil, darkroom.FieldError("image_id", "give exactly one of image_id, path or image_b64")
	}
	in := &augmentInput{req: req, data: req.Data, what: "image_b64"}
	switch {
	case req.ImageID != "":
		r, err := s.ResolveEdits(req.ImageID, req.Spec)
		if err != nil {
			return nil, err
		}
		if in.data, err = r.Load(); err != nil {
			return nil, err
		}
		in.edits, in.hash = append([]engine.Edit{}, r.Edits...), r.Hash
		in.what = "image " + req.ImageID
		if in.header, err = engine.ReadHeader(in.data, 0); err != nil {
			return nil, edit.RenderFailure(err, "image %s", req.ImageID)
		}
		return in, nil
	case req.Path != "":
		var err error
		if in.data, _, err = ws.ReadAllowed(req.Path); err != nil {
			return nil, err
		}
		in.what = req.Path
	}
	var err error
	if in.header, err = engine.ReadHeader(in.data, 0); err != nil {
		if darkroom.Code(err) == darkroom.InvalidInput {
			return nil, darkroom.Wrap(darkroom.RenderError, err, "%s is not an image darkroom can decode (%s)", in.what, engine.ReadFormats)
		}
		return nil, err
	}
	return in, nil
}

// sourceCost is what reading a workspace image holds before it is augmented: its
// decode, the render of its edits and the PNG original made from it.
func (in *augmentInput) sourceCost() int64 {
	h := in.header
	pw, ph := engine.PeakFrame(h.UprightWidth, h.UprightHeight, in.edits)
	return h.DecodeCost() + 2*engine.FloatBytes(pw, ph) + encodeBytes(pw, ph)
}

func (in *augmentInput) sourceSubject() string {
	return fmt.Sprintf("the %dx%d image", in.header.UprightWidth, in.header.UprightHeight)
}

// encodeBytes bounds what encoding a w x h image holds besides its float pixels:
// an 8-bit copy (WebP's and PNG's encoders read one) and the compressor's state.
func encodeBytes(w, h int) int64 { return 5 * int64(w) * int64(h) }

// augmentWorkingSet is the reservation the whole call needs once its recipe is
// known (see the comment at the top of this file).
func (s *Service) augmentWorkingSet(in *augmentInput, req AugmentRequest, out Augmented) int64 {
	w, h := out.Width, out.Height
	pw, ph := s.Augmenter().PeakFrame(w, h, out.Pipeline, out.Seed, req.Count)
	n := in.header.DecodeCost()
	if in.edits != nil {
		// The source as rendered at its version replaced the decoded one.
		n = max(n, engine.FloatBytes(w, h)+encodeBytes(w, h))
	}
	n += 3*engine.FloatBytes(pw, ph) + encodeBytes(pw, ph)
	if req.MaskPNG != nil {
		// The mask's decoder image (16-bit at most), its labels, a variant's
		// moved labels and their 8-bit PNG copy.
		n += 2*int64(w)*int64(h) + 2*int64(w)*int64(h) + 3*int64(pw)*int64(ph)
	}
	return n
}

// augmentSource decodes the image to augment inside the reservation: a workspace
// image rendered at its version, or the file. It returns the pixels and what
// original.<ext> holds (the file as given, or the rendered version as PNG) with
// its extension.
func (s *Service) augmentSource(ctx context.Context, in *augmentInput, res *engine.Reservation) (*engine.Image, string, []byte, error) {
	opt := engine.DecodeOptions{Context: ctx, Reserved: res.Bytes}
	src, err := engine.Decode(in.data, opt)
	if in.edits == nil {
		if err != nil {
			if darkroom.Code(err) == darkroom.InvalidInput {
				return nil, "", nil, darkroom.Wrap(darkroom.RenderError, err, "%s is not an image darkroom can decode (%s)", in.what, engine.ReadFormats)
			}
			return nil, "", nil, err
		}
		return src.Image, workspace.SourceExt[src.Format][1:], in.data, nil
	}
	if err != nil {
		return nil, "", nil, edit.RenderFailure(err, "image %s", in.req.ImageID)
	}
	img := src.Image
	if len(in.edits) > 0 {
		if img, err = engine.RenderOwned(img, in.edits, engine.RenderOptions{}); err != nil {
			return nil, "", nil, edit.RenderFailure(err, "image %s at %s", in.req.ImageID, edit.Abbrev(in.hash))
		}
	}
	var buf bytes.Buffer
	if err := engine.Encode(&buf, img, engine.EncodeOptions{Format: "png"}); err != nil {
		return nil, "", nil, edit.RenderFailure(err, "encode image %s", in.req.ImageID)
	}
	return img, "png", buf.Bytes(), nil
}

// augmentPlan reads the request's recipe at out's size into out.Recipe and
// out.Pipeline, checks it, and settles the seed.
func (s *Service) augmentPlan(req AugmentRequest, out *Augmented) error {
	var err error
	if out.Recipe, out.Pipeline, out.Unread, err = s.recipe(req, out.Width, out.Height); err != nil {
		return err
	}
	// An entry no pack defines is refused up front (with the closest names), not
	// skipped in every variant: a misspelt step would otherwise give unchanged copies.
	for i, st := range out.Pipeline {
		if _, err := s.LookupEntry(fmt.Sprintf("pipeline[%d].entry", i), st.Entry); err != nil {
			return err
		}
	}
	if err := s.Augmenter().Check(out.Pipeline); err != nil {
		return err
	}
	if req.Seed != nil {
		out.Seed = *req.Seed
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return darkroom.Wrap(darkroom.Unavailable, err, "draw a seed")
	}
	out.Seed, out.SeedSource = binary.LittleEndian.Uint64(b[:])&MaxSeed, "random"
	return nil
}

// checkMaskHeader refuses, from its header alone, a label mask that is not the
// image's size or not a PNG the engine reads: nothing of it is decoded.
func checkMaskHeader(data []byte, w, h int) error {
	if data == nil {
		return nil
	}
	_, err := engine.CheckLabelMask(data, w, h, 0)
	var e *darkroom.Error
	if errors.As(err, &e) && e.Details["mask_width"] != nil {
		return darkroom.FieldError("annotations.mask_b64", "the mask is %vx%v, the image %dx%d", e.Details["mask_width"], e.Details["mask_height"], w, h)
	}
	if err != nil {
		return maskFieldError(err)
	}
	return nil
}

// maskFieldError names annotations.mask_b64 in a mask's decode error; the budget's
// limit_exceeded keeps its code.
func maskFieldError(err error) error {
	if darkroom.Code(err) != darkroom.InvalidInput {
		return darkroom.Wrap(darkroom.Code(err), err, "annotations.mask_b64")
	}
	return darkroom.FieldError("annotations.mask_b64", "%s", err.Error())
}

// variantSink is what a variant's encoder writes besides its file: the size, the
// SHA-256, and the bytes while they fit what the caller keeps inline.
type variantSink struct {
	size  int64
	sum   hash.Hash
	keep  int
	buf   []byte
	spill bool
}

func newVariantSink(keep int) *variantSink {
	return &variantSink{sum: sha256.New(), keep: keep}
}

func (v *variantSink) Write(p []byte) (int, error) {
	v.size += int64(len(p))
	v.sum.Write(p)
	if !v.spill {
		if len(v.buf)+len(p) > v.keep {
			v.spill, v.buf = true, nil
		} else {
			v.buf = append(v.buf, p...)
		}
	}
	return len(p), nil
}

// kept is the file's bytes when they all fit, else nil.
func (v *variantSink) kept() []byte {
	if v.spill || v.size == 0 {
		return nil
	}
	return v.buf
}
