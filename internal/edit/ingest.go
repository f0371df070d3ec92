package edit

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/history"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

// Ingest: a photo's bytes become an image of the workspace, with its source copy,
// its metadata and a history whose baseline is the empty state.

// IngestRequest names the photo to ingest: a path (read only under the allowed
// roots) or its bytes, and the image_id to give it (empty: from the file name, or
// from the content hash for bytes).
type IngestRequest struct {
	Path    string
	Data    []byte
	ImageID string
}

// Ingested is what Ingest made.
type Ingested struct {
	Mutation
	Width, Height int
	Format        string
	EXIF          engine.EXIFSummary
	// SuggestedL1 is an L1 template for a photo that looks badly exposed, or "".
	SuggestedL1 string
	Warnings    []string
}

// Ingest decodes a photo (checking it), copies it into the workspace and starts its
// history. Returns invalid_input for a request with both or neither of Path and
// Data, permission_error for a path outside the allowed roots, render_error for bytes
// that are no photo darkroom decodes, versioning_error when the image_id exists.
func (s *Editor) Ingest(req IngestRequest) (Ingested, error) {
	ws, err := s.RequireWorkspace()
	if err != nil {
		return Ingested{}, err
	}
	if (req.Path == "") == (req.Data == nil) {
		return Ingested{}, darkroom.FieldError("path", "give exactly one of path or image_b64")
	}
	data, name, id := req.Data, "", req.ImageID
	if req.Path != "" {
		if data, _, err = ws.ReadAllowed(req.Path); err != nil {
			return Ingested{}, err
		}
		name = filepath.Base(req.Path)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if id == "" {
		if name != "" {
			id = ImageIDFromName(name)
		} else {
			id = "img-" + hash[:12]
		}
	}

	// A cheap refusal before the decode; checked again under the lock below.
	if err := checkNewImage(ws, id); err != nil {
		return Ingested{}, err
	}
	// Decoding through the previewer checks the file and leaves its proxy cached, so
	// the first preview after ingest does not decode the photo again.
	load := func() ([]byte, error) { return data, nil }
	proxy, err := ws.Previews.Proxy(hash, load)
	if err != nil {
		what := "image_b64"
		if req.Path != "" {
			what = req.Path
		}
		if darkroom.Code(err) == darkroom.InvalidInput {
			return Ingested{}, darkroom.Wrap(darkroom.RenderError, err, "%s is not a photo darkroom can decode (%s)", what, engine.ReadFormats)
		}
		return Ingested{}, err
	}

	// ingestMu serializes ingests in this process, so two ingests of one new
	// image_id cannot both pass the existence check; across processes the history's
	// Init decides and the source copies, named by content, never overwrite one
	// another.
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	if err := checkNewImage(ws, id); err != nil {
		return Ingested{}, err
	}
	file, _, err := ws.StoreSource(id, "source"+workspace.SourceExt[proxy.Format], data)
	if err != nil {
		return Ingested{}, err
	}
	meta, err := json.Marshal(workspace.SourceMeta{File: file, SHA256: hash, Format: proxy.Format,
		Width: proxy.Width, Height: proxy.Height, EXIF: workspace.NewSourceEXIF(proxy.Meta), Name: name})
	if err != nil {
		return Ingested{}, darkroom.Wrap(darkroom.InternalError, err, "ingest %s: metadata", id)
	}
	baseline := history.State{Entries: []history.Entry{}}
	head, err := ws.History.Init(id, baseline, meta)
	if err != nil {
		// Another process may have ingested the id meanwhile; its copy has its own
		// name unless it is the same file.
		if m, _, merr := ws.Source(id); merr != nil || m.File != file {
			os.Remove(filepath.Join(ws.Root, filepath.FromSlash(file)))
		}
		if darkroom.Code(err) == darkroom.StateError {
			return Ingested{}, imageExists(id)
		}
		return Ingested{}, err
	}
	// What Init committed: the baseline on a new main branch. HEAD read again
	// could already be another call's.
	sa, err := describeState(history.Head{Hash: head, Branch: history.MainBranch}, baseline)
	if err != nil {
		return Ingested{}, err
	}
	// The image exists now: a suggestion that cannot be made is no reason to fail.
	l1, err := s.suggestL1(ws, hash, load)
	if err != nil {
		s.Logger.Warn("ingest: no template suggestion", "image_id", id, "err", err)
		l1 = ""
	}
	return Ingested{
		Mutation: Mutation{ImageID: id, StateAfter: sa, SnapshotHash: head},
		Width:    proxy.Width, Height: proxy.Height, Format: proxy.Format, EXIF: proxy.Meta,
		SuggestedL1: l1, Warnings: proxy.Warnings,
	}, nil
}

// checkNewImage returns versioning_error when image id exists (damaged or not).
func checkNewImage(ws *workspace.Workspace, id string) error {
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

// DecodeImageB64 decodes an image_b64 payload: standard base64, padded or not, line
// breaks allowed, optionally as a data: URL. The size is checked from the encoded
// length before anything is decoded.
func DecodeImageB64(b64 string) ([]byte, error) {
	if strings.HasPrefix(b64, "data:") {
		if i := strings.IndexByte(b64, ','); i > 0 && strings.Contains(b64[:i], ";base64") {
			b64 = b64[i+1:]
		}
	}
	n := len(b64) - strings.Count(b64, "\n") - strings.Count(b64, "\r")
	if n > base64.StdEncoding.EncodedLen(workspace.MaxImageB64Bytes) {
		return nil, &darkroom.Error{Code: darkroom.LimitExceeded,
			Message: fmt.Sprintf("image_b64: about %d bytes decoded, over the limit of %d (8 MiB); ingest a large photo by path", n/4*3, workspace.MaxImageB64Bytes),
			Details: map[string]any{"field": "image_b64", "limit": workspace.MaxImageB64Bytes}}
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		var rerr error
		if data, rerr = base64.RawStdEncoding.DecodeString(b64); rerr != nil {
			return nil, darkroom.FieldError("image_b64", "not valid base64: %v", err)
		}
	}
	if len(data) > workspace.MaxImageB64Bytes {
		return nil, &darkroom.Error{Code: darkroom.LimitExceeded,
			Message: fmt.Sprintf("image_b64: %d bytes decoded, over the limit of %d (8 MiB)", len(data), workspace.MaxImageB64Bytes),
			Details: map[string]any{"field": "image_b64", "limit": workspace.MaxImageB64Bytes}}
	}
	return data, nil
}

// ImageIDFromName makes an #ImageID of a file name: its base without the extension,
// case kept (IMG_1234.JPG is IMG_1234, as the photographer calls it), every run of
// other characters turned into one underscore, at most 64 characters; "image" when
// nothing is left.
func ImageIDFromName(name string) string {
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
func (s *Editor) suggestL1(ws *workspace.Workspace, key string, load engine.Loader) (string, error) {
	preview := func(edits []engine.Edit) (float64, error) {
		img, err := ws.Previews.Preview(engine.PreviewRequest{Key: key, Load: load, Edits: edits, LongEdge: suggestSize})
		if err != nil {
			return 0, err
		}
		return engine.MeanDisplayLuma(img), nil
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
