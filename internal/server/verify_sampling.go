package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/verify"
)

// What waiting for the client's model may cost. A call that asks (verify_augmentation,
// augment_image's options.verify) sends its sampling requests itself while it runs,
// so the wait lies inside the call: inside its time limit and concurrency slot over
// HTTP, ended by notifications/cancelled and by the session's end, and bounded on
// either transport by time_limits.sampling_ms, past which the questions left are
// unavailable. What the wait holds is the requests alone: each image goes as a
// preview of at most samplePreviewEdge pixels on the long edge, made from the file
// one at a time, so no full-size image or decoded pixel stays in memory while the
// client thinks. An answer longer than maxAnswerBytes is cut there.
const (
	// samplePreviewEdge is the long edge of the images sent to the client's model:
	// enough to judge a subject and a transform, a few tens of kilobytes as JPEG.
	samplePreviewEdge = 768
	// samplePreviewQuality is their JPEG quality.
	samplePreviewQuality = 85
	// maxAnswerBytes bounds the text of one answer that is read: an answer asked for
	// in at most 400 tokens is a few hundred bytes.
	maxAnswerBytes = 16 << 10
)

// samplingWait is how long a call waits for the client's answers: the contract's
// time_limits.sampling_ms (scaled with the policy's time limits), or what
// WithSamplingWait set.
func (s *Server) samplingWait() time.Duration {
	switch {
	case s.samplingWaitOverride > 0:
		return s.samplingWaitOverride
	case s.policy != nil && s.policy.SamplingWait > 0:
		return s.policy.SamplingWait
	}
	d, err := s.Contract.SamplingWait()
	if err != nil || d <= 0 {
		return 2 * time.Minute
	}
	return d
}

// WithSamplingWait bounds the wait for a client's sampling answers by d instead of
// the contract's time_limits.sampling_ms (a test's short wait).
func WithSamplingWait(d time.Duration) Option {
	return func(s *Server) { s.samplingWaitOverride = d }
}

// errSamplingWait is the cause of a wait ended by samplingWait.
type errSamplingWait struct{ wait time.Duration }

func (e errSamplingWait) Error() string {
	return fmt.Sprintf("the client's model did not answer within %s (time_limits.sampling_ms)", e.wait)
}

// cutAnswer bounds an answer's text to maxAnswerBytes, on a character boundary.
func cutAnswer(text string) string {
	if len(text) <= maxAnswerBytes {
		return text
	}
	cut := maxAnswerBytes
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut]
}

// samplePreview is a small JPEG of an image file's bytes, decoded shrunk (within
// the decode budget) and encoded at once.
func samplePreview(ctx context.Context, data []byte) ([]byte, error) {
	src, err := engine.Decode(data, engine.DecodeOptions{MaxLongEdge: samplePreviewEdge, Context: ctx})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := engine.Encode(&b, src.Image, engine.EncodeOptions{Format: "jpeg", Quality: samplePreviewQuality}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// previewMu makes the previews of sampling requests one at a time, process-wide:
// the file's bytes and its decode are held only while its preview is made, so calls
// that ask together hold one image's worth at once besides the previews.
var previewMu sync.Mutex

// previewQuestions replaces each question's images by previews (samplePreview),
// reading each file (SampleImage.Path, VerifyRequest.PathsOnly) when its preview is
// made; questions sharing an image (the original) share its preview. Only the
// questions ask keeps are kept: those still to be asked.
func (s *Server) previewQuestions(ctx context.Context, qs []verify.Question, ask func(id string) bool) ([]verify.Question, error) {
	done := map[string][]byte{}
	var out []verify.Question
	for _, q := range qs {
		if !ask(q.ID) {
			continue
		}
		imgs := make([]verify.SampleImage, len(q.Images))
		for i, im := range q.Images {
			p, ok := done[im.Path]
			if !ok || im.Path == "" {
				var err error
				if p, err = s.preview(ctx, im); err != nil {
					return nil, fmt.Errorf("question %s: %w", q.ID, err)
				}
				done[im.Path] = p
			}
			imgs[i] = verify.SampleImage{Data: p, MIME: "image/jpeg"}
		}
		out = append(out, verify.Question{ID: q.ID, Prompt: q.Prompt, Images: imgs})
	}
	return out, nil
}

// preview makes one image's preview (see previewMu).
func (s *Server) preview(ctx context.Context, im verify.SampleImage) ([]byte, error) {
	previewMu.Lock()
	defer previewMu.Unlock()
	data := im.Data
	if im.Path != "" {
		var err error
		if data, err = os.ReadFile(im.Path); err != nil {
			if s.Workspace != nil {
				return nil, s.Workspace.FSError(err, "read %s", s.Workspace.Rel(im.Path))
			}
			return nil, darkroom.Errorf(darkroom.NotFound, "read %s", filepath.Base(im.Path))
		}
	}
	p, err := samplePreview(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	return p, nil
}

// askSampling sends the client's model the sampling requests itself, all at once,
// and waits for the answers within the call (see the constants above). A client's
// error answer is unavailable, a result that is not a sampling result invalid_input,
// each naming the question; a wait ended by sampling_ms unavailable; one ended by
// the call's own time limit or cancellation returns the context's error, which the
// policy turns into timeout.
func (s *Server) askSampling(ctx context.Context, ss *mcp.ServerSession, pending mcp.InputRequestMap) (map[string]verify.Answer, error) {
	wait := s.samplingWait()
	ctx, cancel := context.WithTimeoutCause(ctx, wait, errSamplingWait{wait})
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]verify.Answer{}
	var firstErr error
	for id, ir := range pending {
		params, ok := ir.(*mcp.CreateMessageParams)
		if !ok {
			continue
		}
		wg.Go(func() {
			res, err := ss.CreateMessage(ctx, params)
			a, ok := verify.Answer{}, false
			if err == nil {
				if a, ok = sampled(res); !ok {
					err = darkroom.Errorf(darkroom.InvalidInput, "question %s: the client's sampling result has no text", id)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = samplingError(ctx, id, err)
					cancel() // the call fails: the other questions need no answer
				}
				return
			}
			answers[id] = a
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return answers, nil
}

// samplingError codes the failure of one sampling request.
func samplingError(ctx context.Context, id string, err error) error {
	var we *jsonrpc.Error
	var sw errSamplingWait
	switch {
	case darkroom.Code(err) != darkroom.InternalError:
		return err
	case errors.As(context.Cause(ctx), &sw):
		e := darkroom.Errorf(darkroom.Unavailable, "question %s: %s", id, sw.Error())
		e.Details = map[string]any{"question": id, "waited_ms": sw.wait.Milliseconds()}
		return e
	case ctx.Err() != nil:
		// The call's time limit (which the policy turns into timeout) or its
		// cancellation.
		return fmt.Errorf("question %s: %w", id, ctx.Err())
	case errors.As(err, &we):
		e := darkroom.Errorf(darkroom.Unavailable, "question %s: the client answered sampling/createMessage with an error (%d): %s", id, we.Code, cutAnswer(we.Message))
		e.Details = map[string]any{"question": id, "client_error": we.Code}
		return e
	}
	// The SDK's client answered something it could not read as a sampling result.
	e := darkroom.Errorf(darkroom.InvalidInput, "question %s: the client's answer to sampling/createMessage is not a sampling result: %s", id, cutAnswer(err.Error()))
	e.Details = map[string]any{"question": id}
	return e
}
