package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"darkroom"
	"darkroom/internal/engine"
	"darkroom/internal/history"
	"darkroom/internal/vocab"
)

// The ingest tools: ingest, get_state and bind_layers.

func init() {
	register("ingest", ingest)
	register("get_state", getState)
	register("bind_layers", bindLayers)
}

// ingestMu serializes ingests in this process, so two ingests of one new image_id
// cannot both pass the existence check; across processes the history's Init decides
// and the source copies, named by content, never overwrite one another.
var ingestMu sync.Mutex

// sourceExt is the extension of a source copy, by decoded format.
var sourceExt = map[string]string{"jpeg": ".jpg", "png": ".png", "tiff": ".tif", "webp": ".webp", "gif": ".gif"}

// ingestData is #IngestData.
type ingestData struct {
	Mutation
	Width     int           `json:"width"`
	Height    int           `json:"height"`
	Format    string        `json:"format"`
	EXIF      ingestEXIF    `json:"exif"`
	Suggested templatesView `json:"suggested"`
	Warnings  []string      `json:"warnings"`
}

type ingestEXIF struct {
	Make        *string  `json:"make"`
	Model       *string  `json:"model"`
	Lens        *string  `json:"lens"`
	FocalLength *float64 `json:"focal_length"`
	Orientation int      `json:"orientation"`
}

// templatesView is a pair of templates as the contract shows them: null for none.
type templatesView struct {
	L1 *string `json:"l1_template"`
	L2 *string `json:"l2_template"`
}

func viewTemplates(t Templates) templatesView {
	var v templatesView
	if t.L1 != "" {
		v.L1 = &t.L1
	}
	if t.L2 != "" {
		v.L2 = &t.L2
	}
	return v
}

func nonZeroPtr[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func ingest(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	path, b64, id := stringArg(args, "path"), stringArg(args, "image_b64"), stringArg(args, "image_id")
	if (path == "") == (b64 == "") {
		return nil, "", fieldError("path", "give exactly one of path or image_b64")
	}
	var data []byte
	var name string
	if path != "" {
		if data, _, err = ws.ReadAllowed(path); err != nil {
			return nil, "", err
		}
		name = filepath.Base(path)
	} else if data, err = decodeImageB64(b64); err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if id == "" {
		if name != "" {
			id = imageIDFromName(name)
		} else {
			id = "img-" + hash[:12]
		}
	}

	// A cheap refusal before the decode; checked again under the lock below.
	if err := checkNewImage(ws, id); err != nil {
		return nil, "", err
	}
	// Decoding through the previewer checks the file and leaves its proxy cached, so
	// the first preview after ingest does not decode the photo again.
	load := func() ([]byte, error) { return data, nil }
	proxy, err := ws.Previews.Proxy(hash, load)
	if err != nil {
		what := "image_b64"
		if path != "" {
			what = path
		}
		if darkroom.Code(err) == darkroom.InvalidInput {
			return nil, "", darkroom.Wrap(darkroom.RenderError, err, "%s is not a photo darkroom can decode (JPEG, PNG, TIFF, WebP or GIF)", what)
		}
		return nil, "", err
	}

	ingestMu.Lock()
	defer ingestMu.Unlock()
	if err := checkNewImage(ws, id); err != nil {
		return nil, "", err
	}
	file, _, err := ws.StoreSource(id, "source"+sourceExt[proxy.Format], data)
	if err != nil {
		return nil, "", err
	}
	meta, err := json.Marshal(SourceMeta{File: file, SHA256: hash, Format: proxy.Format,
		Width: proxy.Width, Height: proxy.Height, EXIF: proxy.Meta, Name: name})
	if err != nil {
		return nil, "", darkroom.Wrap(darkroom.InternalError, err, "ingest %s: metadata", id)
	}
	if _, err := ws.History.Init(id, history.State{Entries: []history.Entry{}}, meta); err != nil {
		// Another process may have ingested the id meanwhile; its copy has its own
		// name unless it is the same file.
		if m, _, merr := ws.Source(id); merr != nil || m.File != file {
			os.Remove(filepath.Join(ws.Root, filepath.FromSlash(file)))
		}
		if darkroom.Code(err) == darkroom.StateError {
			return nil, "", imageExists(id)
		}
		return nil, "", err
	}

	mut, err := s.Mutation(id)
	if err != nil {
		return nil, "", err
	}
	// The image exists now: a suggestion that cannot be made is no reason to fail.
	l1, err := s.suggestL1(ws, hash, load)
	if err != nil {
		s.Logger.Warn("ingest: no template suggestion", "image_id", id, "err", err)
		l1 = ""
	}
	out := ingestData{
		Mutation: mut, Width: proxy.Width, Height: proxy.Height, Format: proxy.Format,
		EXIF: ingestEXIF{
			Make: nonZeroPtr(proxy.Meta.Make), Model: nonZeroPtr(proxy.Meta.Model), Lens: nonZeroPtr(proxy.Meta.LensModel),
			FocalLength: nonZeroPtr(proxy.Meta.FocalLength), Orientation: min(max(proxy.Meta.Orientation, 1), 8),
		},
		Suggested: viewTemplates(Templates{L1: l1}),
		Warnings:  nonNil(proxy.Warnings),
	}
	summary := fmt.Sprintf("ingested %s: %dx%d %s, baseline %.12s", id, out.Width, out.Height, out.Format, mut.SnapshotHash)
	if l1 != "" {
		summary += "; suggested L1 template " + l1
	}
	return out, summary, nil
}

// checkNewImage returns versioning_error when image id exists (damaged or not).
func checkNewImage(ws *Workspace, id string) error {
	_, err := ws.History.Head(id)
	switch code := darkroom.Code(err); {
	case err == nil || code == darkroom.StateError:
		return imageExists(id)
	case code == darkroom.NotFound:
		return nil
	default:
		return err
	}
}

func imageExists(id string) error {
	return &darkroom.Error{Code: darkroom.VersioningError,
		Message: fmt.Sprintf("image_id: %s already exists; ingest it under another image_id, or edit it as it is", id),
		Details: map[string]any{"field": "image_id", "image_id": id}}
}

// decodeImageB64 decodes an image_b64 payload: standard base64, padded or not, line
// breaks allowed, optionally as a data: URL. The size is checked from the encoded
// length before anything is decoded.
func decodeImageB64(b64 string) ([]byte, error) {
	if strings.HasPrefix(b64, "data:") {
		if i := strings.IndexByte(b64, ','); i > 0 && strings.Contains(b64[:i], ";base64") {
			b64 = b64[i+1:]
		}
	}
	n := len(b64) - strings.Count(b64, "\n") - strings.Count(b64, "\r")
	if n > base64.StdEncoding.EncodedLen(MaxImageB64Bytes) {
		return nil, &darkroom.Error{Code: darkroom.LimitExceeded,
			Message: fmt.Sprintf("image_b64: about %d bytes decoded, over the limit of %d (8 MiB); ingest a large photo by path", n/4*3, MaxImageB64Bytes),
			Details: map[string]any{"field": "image_b64", "limit": MaxImageB64Bytes}}
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		var rerr error
		if data, rerr = base64.RawStdEncoding.DecodeString(b64); rerr != nil {
			return nil, fieldError("image_b64", "not valid base64: %v", err)
		}
	}
	if len(data) > MaxImageB64Bytes {
		return nil, &darkroom.Error{Code: darkroom.LimitExceeded,
			Message: fmt.Sprintf("image_b64: %d bytes decoded, over the limit of %d (8 MiB)", len(data), MaxImageB64Bytes),
			Details: map[string]any{"field": "image_b64", "limit": MaxImageB64Bytes}}
	}
	return data, nil
}

// imageIDFromName makes an #ImageID of a file name: its base without the extension,
// case kept (IMG_1234.JPG is IMG_1234, as the photographer calls it), every run of
// other characters turned into one underscore, at most 64 characters; "image" when
// nothing is left.
func imageIDFromName(name string) string {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	var b strings.Builder
	under := false
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-':
			b.WriteRune(r)
			under = false
		case !under && b.Len() > 0:
			b.WriteByte('_')
			under = true
		}
	}
	id := strings.Trim(b.String(), "_-")
	if len(id) > 64 {
		id = strings.TrimRight(id[:64], "_-")
	}
	if id == "" {
		return "image"
	}
	return id
}

// Brightness bounds for suggesting an L1 template: a photo whose mean display
// luminance lies outside them looks under- or overexposed.
const (
	suggestDark   = 0.28
	suggestBright = 0.68
	suggestTarget = 0.46 // a typical well-exposed photo's mean
	suggestSize   = 256  // long edge of the preview the means are taken on
)

// suggestL1 proposes an L1 template for an image from its mean display luminance:
// none when it looks well exposed; otherwise, of the L1 entries tagged "template",
// the one whose render at its defaults brings the mean closest to a typical
// exposure, if any brings it closer. ingest never suggests an L2 look: a look is a
// matter of taste that pixel statistics cannot guess, so suggested.l2_template is
// always null.
func (s *Server) suggestL1(ws *Workspace, key string, load engine.Loader) (string, error) {
	preview := func(edits []engine.Edit) (float64, error) {
		img, err := ws.Previews.Preview(engine.PreviewRequest{Key: key, Load: load, Edits: edits, LongEdge: suggestSize})
		if err != nil {
			return 0, err
		}
		return meanDisplayLuma(img), nil
	}
	mean, err := preview(nil)
	if err != nil {
		return "", err
	}
	if mean >= suggestDark && mean <= suggestBright {
		return "", nil
	}
	best, bestDist := "", math.Abs(mean-suggestTarget)
	for _, e := range s.Vocab.Select(vocab.Filter{Layer: "L1", Tags: []string{"template"}}) {
		edits, err := s.entryEdits(history.Entry{Primitive: e.Name, Strength: 1})
		if err != nil {
			return "", err
		}
		m, err := preview(edits)
		if err != nil {
			return "", err
		}
		if d := math.Abs(m - suggestTarget); d < bestDist {
			best, bestDist = e.Name, d
		}
	}
	return best, nil
}

// meanDisplayLuma is the mean over img of the sRGB-encoded Rec. 709 luminance: the
// brightness a viewer judges exposure by.
func meanDisplayLuma(img *engine.Image) float64 {
	var sum float64
	for i := 0; i+2 < len(img.Pix); i += 3 {
		l := 0.2126*img.Pix[i] + 0.7152*img.Pix[i+1] + 0.0722*img.Pix[i+2]
		sum += float64(engine.LinearToSRGB(min(max(l, 0), 1)))
	}
	return sum / float64(img.W*img.H)
}

// getStateData is #GetStateData.
type getStateData struct {
	ImageID    string           `json:"image_id"`
	StateAfter StateAfter       `json:"state_after"`
	Entries    []stateEntryView `json:"entries"`
	Templates  templatesView    `json:"templates"`
	Width      int              `json:"width"`
	Height     int              `json:"height"`
}

// stateEntryView is the contract's #StateEntry.
type stateEntryView struct {
	Primitive string             `json:"primitive"`
	Layer     string             `json:"layer"`
	Values    map[string]float64 `json:"values"`
	Mask      json.RawMessage    `json:"mask"` // nil encodes as null: the whole image
	Strength  float64            `json:"strength"`
}

func getState(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	ws, err := s.workspace()
	if err != nil {
		return nil, "", err
	}
	id := stringArg(args, "image_id")
	meta, _, err := ws.Source(id)
	if err != nil {
		return nil, "", err
	}
	sa, st, err := s.StateAfter(id)
	if err != nil {
		return nil, "", err
	}
	t, err := StateTemplates(st)
	if err != nil {
		return nil, "", err
	}
	out := getStateData{ImageID: id, StateAfter: sa, Entries: []stateEntryView{}, Templates: viewTemplates(t), Width: meta.Width, Height: meta.Height}
	for _, e := range st.Entries {
		v := stateEntryView{Primitive: e.Primitive, Layer: e.Layer, Values: e.Values, Mask: e.Mask, Strength: e.Strength}
		if v.Values == nil {
			v.Values = map[string]float64{}
		}
		out.Entries = append(out.Entries, v)
	}
	where := "on branch " + derefOr(sa.Branch, "")
	if sa.Detached {
		where = "detached"
	}
	return out, fmt.Sprintf("%s: %d %s, head %.12s %s", id, len(out.Entries), plural(len(out.Entries), "entry", "entries"), sa.Head, where), nil
}

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

func bindLayers(_ context.Context, s *Server, args map[string]any) (any, string, error) {
	id := stringArg(args, "image_id")
	l1, l2 := stringArg(args, "l1_template"), stringArg(args, "l2_template")
	if l1 == "" && l2 == "" {
		return nil, "", fieldError("l1_template", "give l1_template, l2_template or both (null leaves a template as it is)")
	}
	for _, b := range []struct{ field, name, layer string }{{"l1_template", l1, "L1"}, {"l2_template", l2, "L2"}} {
		if b.name == "" {
			continue
		}
		e, err := s.lookupEntry(b.field, b.name)
		if err != nil {
			return nil, "", err
		}
		if e.Layer != b.layer {
			return nil, "", fieldError(b.field, "%s is an %s entry; an %s template must be an %s entry (list_vocabulary with layer %s lists them)", e.Name, e.Layer, b.layer, b.layer, b.layer)
		}
	}
	var bound Templates
	m, err := s.Mutate(id, "bind_layers", func(st *history.State) error {
		t, err := StateTemplates(*st)
		if err != nil {
			return err
		}
		if l1 != "" {
			t.L1 = l1
		}
		if l2 != "" {
			t.L2 = l2
		}
		SetStateTemplates(st, t)
		bound = t
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("templates of %s: L1 %s, L2 %s; %s", id, derefOr(nonZeroPtr(bound.L1), "none"), derefOr(nonZeroPtr(bound.L2), "none"), describeMutation(m)), nil
}
