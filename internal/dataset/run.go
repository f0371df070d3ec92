package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/fsx"
)

// Job is one variant to make: the source image's bytes as they are on disk, its
// path relative to the input folder (slash-separated), the variant index, the
// variant's own seed (VariantSeed) and the source's labels in the neutral form.
// Labels.Objects is the job's own copy; Image and Labels.Mask are shared by the
// image's variants, so an AugmentFunc must not modify or keep them.
//
// Out is an empty buffer with room for about the source's bytes, which the
// AugmentFunc may append the encoded variant to and return as Result.Image: the
// runner reuses its memory once the variant is written, so the AugmentFunc must not
// keep it either.
type Job struct {
	Source  string
	Variant int
	Seed    uint64
	Image   []byte
	Labels  Labels
	Out     []byte
}

// Result is a made variant: the encoded image, its extension (".png"; empty keeps the
// source's), the labels moved with it (objects in the same order as the job's, minus
// any the transform dropped, each with its Attrs; the mask moved the same way and
// non-nil when the job had one), and the sampled parameters as JSON. The variant's
// size is read from the encoded image's header (Labels.Width and Height are not
// used), and the labels are written normalised to it.
type Result struct {
	Image  []byte
	Ext    string
	Labels Labels
	Params json.RawMessage
}

// AugmentFunc makes one variant. It must be deterministic: the same job gives the
// same result, byte for byte, whatever else runs. Its randomness comes from
// job.Seed only. An error with a darkroom code is reported for the image and the
// run goes on; an error while ctx is done is taken as cancellation.
type AugmentFunc func(ctx context.Context, job Job) (Result, error)

// Options configure a run.
type Options struct {
	// Recipe identifies the augmentation (canonical text of the prompt, preset or
	// pipeline); it is stored in darkroom-dataset.json so that a rerun with another
	// recipe cannot reuse outputs made by this one.
	Recipe   string
	Seed     uint64
	Variants int
	Shard    Shard
	// Workers is how many images are processed at once, one image in flight per
	// worker; 0 means GOMAXPROCS.
	Workers int
	Augment AugmentFunc
	// Progress, when set, is called after every variant (made or reused), one call
	// at a time.
	Progress func(Progress)
}

// Progress is the state of a run after a variant.
type Progress struct {
	Done, Total int // variants settled: made, reused, or given up with their image
	Reused      int
	Skipped     int     // images skipped with an error
	Rate        float64 // variants made per second in this run (reused ones excluded)
	ETA         time.Duration
}

// Skip is an image the run could not process, with the coded reason.
type Skip struct {
	Source  string `json:"source"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Report is what a run did.
type Report struct {
	Images   int    // images in this shard
	Total    int    // variants in this shard
	Written  int    // variants made by this run
	Reused   int    // variants found complete from an earlier run
	Skipped  []Skip // sorted by source
	Manifest string // the manifest's path relative to the output
}

// FileRef is a file a record wrote, relative to the output folder.
type FileRef struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Record is one manifest line: a variant written, or an image skipped (Error set,
// and then only Source and Error are written).
type Record struct {
	Source  string          `json:"source"`
	Variant int             `json:"variant"`
	Seed    uint64          `json:"seed"`
	Params  json.RawMessage `json:"params"`
	Output  string          `json:"output"`
	Bytes   int64           `json:"bytes"`
	SHA256  string          `json:"sha256"`
	Width   int             `json:"width"`
	Height  int             `json:"height"`
	Labels  []FileRef       `json:"labels,omitempty"`
	COCO    *[]cocoAnn      `json:"coco,omitempty"`
	// SourceImageID is the COCO id of the source image.
	SourceImageID json.RawMessage `json:"source_image_id,omitempty"`
	Error         *RecordError    `json:"error,omitempty"`
}

// RecordError is why an image was skipped.
type RecordError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type recordJSON Record

// MarshalJSON writes a skipped image as {"source", "error"} only.
func (r Record) MarshalJSON() ([]byte, error) {
	if r.Error != nil {
		return json.Marshal(struct {
			Source string       `json:"source"`
			Error  *RecordError `json:"error"`
		}{r.Source, r.Error})
	}
	return json.Marshal(recordJSON(r))
}

func compareRecords(a, b Record) int {
	return cmp.Or(strings.Compare(a.Source, b.Source),
		cmp.Compare(btoi(a.Error != nil), btoi(b.Error != nil)),
		cmp.Compare(a.Variant, b.Variant))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Output file names.
const (
	InfoFile = "darkroom-dataset.json"
)

// ManifestName is the manifest a run of the shard writes: manifest.jsonl, or
// manifest.shard-<i>-of-<n>.jsonl.
func ManifestName(s Shard) string {
	if s.Count <= 1 {
		return "manifest.jsonl"
	}
	return fmt.Sprintf("manifest.shard-%d-of-%d.jsonl", s.Index, s.Count)
}

// JournalName is the partial manifest a run appends to while it works.
func JournalName(s Shard) string {
	return strings.TrimSuffix(ManifestName(s), ".jsonl") + ".partial.jsonl"
}

// VariantSeed is the seed of variant v of the image at rel (its slash-separated path
// relative to the input folder) in a run seeded with seed: the first 8 bytes, big
// endian, of SHA-256("darkroom-dataset-v1\x00" + rel + "\x00" + seed + "\x00" + v)
// with seed and v in decimal, keeping the low 53 bits so that the seed is exact as a
// JSON number in every language.
func VariantSeed(seed uint64, rel string, v int) uint64 {
	h := sha256.Sum256([]byte("darkroom-dataset-v1\x00" + rel + "\x00" + strconv.FormatUint(seed, 10) + "\x00" + strconv.Itoa(v)))
	return binary.BigEndian.Uint64(h[:8]) & (1<<53 - 1)
}

// OutputName is where variant v of the image at rel goes: <dir>/<stem>_v<v><ext>.
func OutputName(rel string, v int, ext string) string {
	return stemOf(rel) + "_v" + strconv.Itoa(v) + ext
}

// Run augments the dataset's images in the shard into out and writes the manifest.
// Variant v of an image depends only on (opts.Seed, its relative path, v). See the
// package documentation for the layout, the journal and how a rerun resumes.
//
// Returns invalid_input for bad options, state_error when out holds a run with
// another recipe, seed or variant count, unavailable when an output file or the
// journal cannot be written (the run stops: the next image would fail the same way),
// and the context's error (coded unavailable) when ctx ends first. After either
// stop the journal holds every variant finished, and a rerun resumes.
// An image that cannot be read or augmented is skipped and listed in the report and
// the manifest.
func Run(ctx context.Context, d *Dataset, out *os.Root, opts Options) (*Report, error) {
	return RunTo(ctx, d, Local(out), opts)
}

// RunTo is Run writing into a Store: a folder (Local) or a bucket (OpenBucket).
func RunTo(ctx context.Context, d *Dataset, out Store, opts Options) (*Report, error) {
	if opts.Variants < 1 {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "variants: %d is below the minimum 1", opts.Variants)
	}
	if opts.Augment == nil {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "no augmentation given")
	}
	if err := opts.Shard.check(); err != nil {
		return nil, err
	}
	info := d.info
	info.Recipe, info.Seed, info.Variants = opts.Recipe, opts.Seed, opts.Variants
	if err := writeInfo(out, &info); err != nil {
		return nil, err
	}
	for _, n := range info.NamesFiles {
		data, err := readLimited(d.fsys, n, MaxLabelBytes, false)
		if err != nil {
			return nil, err
		}
		if err := writeIfChanged(out, n, data); err != nil {
			return nil, err
		}
	}
	prev, err := previousRecords(out, opts.Shard)
	if err != nil {
		return nil, err
	}
	journal, err := out.Journal(JournalName(opts.Shard))
	if err != nil {
		return nil, err
	}
	defer journal.Close()

	var images []string
	for _, p := range d.Images {
		if opts.Shard.Has(p) {
			images = append(images, p)
		}
	}
	parent := ctx
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	r := &runner{
		d: d, out: out, opts: opts, info: &info, prev: prev, journal: journal,
		total: len(images) * opts.Variants, start: time.Now(), synced: time.Now(), stop: stop,
	}
	waited := false
	defer func() {
		if !waited {
			out.Settle() // a stopped run: the journal stays, and no goroutine
		}
	}()
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make(chan string)
	var wg sync.WaitGroup
	for range min(workers, max(len(images), 1)) {
		wg.Go(func() {
			for rel := range work {
				r.image(ctx, rel)
			}
		})
	}
feed:
	for _, rel := range images {
		select {
		case work <- rel:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	rep := &Report{Images: len(images), Total: r.total, Written: r.written, Reused: r.reused, Manifest: ManifestName(opts.Shard)}
	for _, rec := range r.records {
		if rec.Error != nil {
			rep.Skipped = append(rep.Skipped, Skip{rec.Source, rec.Error.Code, rec.Error.Message})
		}
	}
	// Label files that label no image, and formats not read, are reported too.
	rep.Skipped = append(rep.Skipped, d.Unread...)
	slices.SortFunc(rep.Skipped, func(a, b Skip) int { return strings.Compare(a.Source, b.Source) })
	if r.fatal != nil {
		return rep, r.fatal
	}
	if err := parent.Err(); err != nil {
		return rep, darkroom.Wrap(darkroom.Unavailable, err, "augment dataset stopped after %d of %d variants; rerun to resume", r.written+r.reused, r.total)
	}
	// Closed (and unlocked) before finish removes it: Windows cannot remove an open
	// file.
	journal.Close()
	waited = true
	if err := out.Settle(); err != nil {
		return rep, err
	}
	out.Tidy(r.records)
	if err := finish(out, &info, r.records, opts.Shard); err != nil {
		return rep, err
	}
	return rep, nil
}

type runner struct {
	d       *Dataset
	out     Store
	opts    Options
	info    *Info
	prev    map[recordKey]Record
	journal Journal
	total   int
	start   time.Time
	stop    context.CancelFunc

	mu      sync.Mutex
	records []Record
	synced  time.Time // the journal's last fsync
	written int
	reused  int
	skipped int
	unmade  int // variants of skipped images
	fatal   error
}

type recordKey struct {
	source  string
	variant int
}

// image makes all variants of one image: read once, augment and write each, drop.
func (r *runner) image(ctx context.Context, rel string) {
	var src *source
	defer func() {
		if src != nil {
			scratch.Put(src.data) // no job holds the source's bytes now
		}
	}()
	for v := range r.opts.Variants {
		if ctx.Err() != nil {
			return
		}
		seed := VariantSeed(r.opts.Seed, rel, v)
		if p, ok := r.prev[recordKey{rel, v}]; ok && p.Seed == seed && p.namedFor(rel, v) && r.out.Verify(&p) {
			r.done(p, false, true)
			continue
		}
		if src == nil {
			var err error
			if src, err = r.d.load(rel); err != nil {
				r.skip(rel, err, r.opts.Variants-v)
				return
			}
		}
		rec, err := r.variant(ctx, rel, v, seed, src)
		var oe *outputError
		if errors.As(err, &oe) {
			r.mu.Lock()
			r.failLocked(oe.err)
			r.mu.Unlock()
			return
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.skip(rel, err, r.opts.Variants-v)
			return
		}
		if r.done(rec, true, false) != nil {
			return
		}
	}
}

func (r *runner) variant(ctx context.Context, rel string, v int, seed uint64, src *source) (Record, error) {
	job := Job{Source: rel, Variant: v, Seed: seed, Image: src.data, Labels: src.labels, Out: scratch.Get(len(src.data))}
	job.Labels.Objects = cloneObjects(src.labels.Objects)
	// Written (or failed) when variant returns: Out's memory goes to the next job.
	defer scratch.Put(job.Out)
	res, err := r.augment(ctx, job)
	if err != nil {
		return Record{}, err
	}
	if res.Ext != "" && !validExt.MatchString(res.Ext) {
		return Record{}, darkroom.Errorf(darkroom.InternalError, "variant %d of %s: the augmentation gave the extension %q", v, rel, res.Ext)
	}
	cfg, err := engine.ReadHeader(res.Image, 0)
	if err != nil {
		return Record{}, darkroom.Wrap(darkroom.RenderError, err, "variant %d of %s is not a readable image", v, rel)
	}
	params := []byte("null")
	if len(res.Params) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, res.Params); err != nil {
			return Record{}, darkroom.Wrap(darkroom.InternalError, err, "variant %d of %s: parameters are not JSON", v, rel)
		}
		params = b.Bytes()
	}
	ext := res.Ext
	if ext == "" {
		ext = path.Ext(rel)
	}
	rec := Record{Source: rel, Variant: v, Seed: seed, Params: params, Output: OutputName(rel, v, ext), Width: cfg.Width, Height: cfg.Height}
	objs := res.Labels.Objects
	var files []struct {
		name string
		data []byte
	}
	add := func(name string, data []byte) {
		files = append(files, struct {
			name string
			data []byte
		}{name, data})
	}
	switch stem := stemOf(rec.Output); job.Labels.Format {
	case FormatYOLO:
		name := stem + ".txt"
		if src.ultralytics {
			name = ultralyticsLabel(rec.Output)
		}
		add(name, FormatYOLOFile(objs, cfg.Width, cfg.Height, src.kdim))
	case FormatVOC:
		depth := 3
		if cfg.ColorModel == color.GrayModel || cfg.ColorModel == color.Gray16Model {
			depth = 1
		}
		for i := range objs {
			if objs[i].Name == "" {
				objs[i].Name = strconv.Itoa(objs[i].Class)
			}
		}
		folder := path.Dir(rec.Output)
		if folder == "." {
			folder = ""
		}
		add(stem+".xml", FormatVOCFile(folder, path.Base(rec.Output), cfg.Width, cfg.Height, depth, objs))
	case FormatCOCO:
		if job.Labels.Instances != nil && res.Labels.Instances == nil {
			return Record{}, darkroom.Errorf(darkroom.MaskingError, "variant %d of %s: the augmentation dropped the segmentation", v, rel)
		}
		anns := toCOCO(objs, res.Labels.Instances)
		rec.COCO = &anns
		if src.cocoID != "" {
			rec.SourceImageID = json.RawMessage(src.cocoID)
		}
	}
	if job.Labels.Mask != nil {
		if res.Labels.Mask == nil {
			return Record{}, darkroom.Errorf(darkroom.MaskingError, "variant %d of %s: the augmentation dropped the mask", v, rel)
		}
		data, err := FormatMask(res.Labels.Mask)
		if err != nil {
			return Record{}, err
		}
		add(path.Join("masks", stemOf(rec.Output)+".png"), data)
	}
	// Labels first, the image last: a variant whose image exists has its labels.
	for _, f := range files {
		ref, err := r.out.Write(f.name, f.data, false)
		if err != nil {
			return Record{}, &outputError{err}
		}
		rec.Labels = append(rec.Labels, ref)
	}
	ref, err := r.out.Write(rec.Output, res.Image, false)
	if err != nil {
		return Record{}, &outputError{err}
	}
	rec.Bytes, rec.SHA256 = ref.Bytes, ref.SHA256
	return rec, nil
}

var validExt = regexp.MustCompile(`^\.[A-Za-z0-9]{1,10}$`)

// augment calls the AugmentFunc; a panic in it is that image's internal_error, not
// the end of the run (or of the server running it).
func (r *runner) augment(ctx context.Context, job Job) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = darkroom.Errorf(darkroom.InternalError, "augment variant %d of %s: panic: %v", job.Variant, job.Source, p)
		}
	}()
	return r.opts.Augment(ctx, job)
}

// cloneObjects gives each job its own objects, so an AugmentFunc that moves boxes in
// place cannot change what the next variant starts from.
func cloneObjects(objs []Object) []Object {
	if objs == nil {
		return nil
	}
	out := make([]Object, len(objs))
	for i, o := range objs {
		o.Keypoints = slices.Clone(o.Keypoints)
		o.Attrs = maps.Clone(o.Attrs)
		out[i] = o
	}
	return out
}

// journalSyncEvery is how often the journal is fsynced while a run goes on: a
// power loss costs at most the variants of the last second being made again (a
// rerun verifies every record it reuses), where an fsync per variant cost more
// than the augmentation.
const journalSyncEvery = time.Second

// done records a finished variant: appended to the journal (one write, fsynced at
// most every journalSyncEvery) when it is new, then counted.
func (r *runner) done(rec Record, fresh, reused bool) error {
	var line []byte
	if fresh {
		b, err := json.Marshal(rec)
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "encode record")
		}
		line = append(b, '\n')
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if line != nil {
		if r.fatal != nil {
			return r.fatal
		}
		if _, err := r.journal.Write(line); err != nil {
			return r.failLocked(darkroom.Wrap(darkroom.Unavailable, err, "append to %s", JournalName(r.opts.Shard)))
		}
		if time.Since(r.synced) >= journalSyncEvery {
			if err := r.journal.Sync(); err != nil {
				return r.failLocked(darkroom.Wrap(darkroom.Unavailable, err, "sync %s", JournalName(r.opts.Shard)))
			}
			r.synced = time.Now()
		}
		r.written++
	}
	if reused {
		r.reused++
	}
	r.records = append(r.records, rec)
	r.progress()
	return nil
}

// outputError is a failure to write the output: not the image's fault, and the next
// image would fail the same way (a full disk, a read-only folder), so it ends the run.
type outputError struct{ err error }

func (e *outputError) Error() string { return e.err.Error() }

// failLocked ends the run with err (the first one wins); r.mu is held.
func (r *runner) failLocked(err error) error {
	if r.fatal == nil {
		r.fatal = err
	}
	r.stop()
	return r.fatal
}

// skip records an image that failed, with the number of its variants not made.
func (r *runner) skip(rel string, err error, unmade int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skipped++
	r.unmade += unmade
	r.records = append(r.records, Record{Source: rel, Error: &RecordError{Code: darkroom.Code(err), Message: err.Error()}})
	r.progress()
}

func (r *runner) progress() {
	if r.opts.Progress == nil {
		return
	}
	p := Progress{Done: r.written + r.reused + r.unmade, Total: r.total, Reused: r.reused, Skipped: r.skipped}
	if el := time.Since(r.start).Seconds(); el > 0 && r.written > 0 {
		p.Rate = float64(r.written) / el
		p.ETA = time.Duration(float64(r.total-p.Done) / p.Rate * float64(time.Second))
	}
	r.opts.Progress(p)
}

// verify reports whether a record's files are all there with their size and hash.
func verify(out *os.Root, rec *Record) bool {
	refs := append([]FileRef{{rec.Output, rec.Bytes, rec.SHA256}}, rec.Labels...)
	for _, f := range refs {
		fi, err := out.Stat(f.Path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Bytes {
			return false
		}
		h, err := hashFile(out, f.Path)
		if err != nil || h != f.SHA256 {
			return false
		}
	}
	return true
}

func hashFile(out *os.Root, name string) (string, error) {
	f, err := out.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// previousRecords reads what earlier runs left: for a shard, the merged manifest
// first; then the shard's own manifest and journal (later lines win). Unreadable or
// torn lines are ignored: they name nothing the rerun can trust, and the rerun makes
// those variants again. Records are only candidates: each is verified before reuse.
func previousRecords(out Store, s Shard) (map[recordKey]Record, error) {
	recs := map[recordKey]Record{}
	names := []string{ManifestName(s), JournalName(s)}
	if s.Count > 1 {
		names = append([]string{ManifestName(Shard{})}, names...)
	}
	for _, name := range names {
		f, err := out.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, darkroom.Wrap(darkroom.Unavailable, err, "open %s", name)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var rec Record
			if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Error != nil || rec.Output == "" {
				continue
			}
			recs[recordKey{rec.Source, rec.Variant}] = rec
		}
		f.Close()
	}
	return recs, nil
}

// openJournal opens and locks the journal for appending, first cutting off a torn
// last line (a crash mid-write) so that the next line starts on a line of its own.
func openJournal(out *os.Root, name string) (*os.File, error) {
	f, err := out.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, darkroom.Wrap(darkroom.Unavailable, err, "open %s", name)
	}
	// Two runs of one shard into one folder (a scheduler starting a replacement
	// while the first still runs) would write the journal over each other.
	if ok, err := fsx.TryLock(f); err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, darkroom.Wrap(darkroom.Unavailable, err, "lock %s", name)
		}
		e := darkroom.Errorf(darkroom.StateError, "another run is writing this output (%s is locked); wait for it or stop it", name)
		e.Details = map[string]any{"file": name}
		return nil, e
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, darkroom.Wrap(darkroom.Unavailable, err, "read %s", name)
	}
	keep := int64(bytes.LastIndexByte(data, '\n') + 1)
	if keep != int64(len(data)) {
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, darkroom.Wrap(darkroom.Unavailable, err, "truncate %s", name)
		}
	}
	if _, err := f.Seek(keep, io.SeekStart); err != nil {
		f.Close()
		return nil, darkroom.Wrap(darkroom.Unavailable, err, "seek %s", name)
	}
	return f, nil
}

// finish writes the manifest (sorted by source, then variant), the COCO file of an
// unsharded run, and removes the journal.
// removeStale removes what an earlier run of this shard, killed while writing, left
// of its outputs: the temporary files writeAtomic renames into place, named
// ".tmp-<name>-<n>" beside <name> (fsx's writer), or ".<name>.tmp-<pid>-<n>" as
// earlier versions named them. Only this shard writes files of the names
// its records hold, and its journal's lock keeps any other run of it from writing
// them now; another shard's temporary files, and anything else, stay. A file that
// cannot be removed is left: it is not an output, and the outputs are complete.
func removeStale(out *os.Root, recs []Record) {
	names := map[string]map[string]bool{} // folder -> base names of outputs
	add := func(p string) {
		dir := path.Dir(p)
		if names[dir] == nil {
			names[dir] = map[string]bool{}
		}
		names[dir][path.Base(p)] = true
	}
	for _, rec := range recs {
		if rec.Output != "" {
			add(rec.Output)
		}
		for _, l := range rec.Labels {
			add(l.Path)
		}
	}
	for dir, own := range names {
		entries, err := fs.ReadDir(out.FS(), dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			i := strings.LastIndex(n, ".tmp-")
			legacy := strings.HasPrefix(n, ".") && i > 1 && own[n[1:i]] && staleSuffix.MatchString(n[i:])
			if legacy || ownTemp(n, own) {
				out.Remove(path.Join(dir, n))
			}
		}
	}
}

// staleSuffix is the end of the temporary names of earlier versions' writeAtomic.
var staleSuffix = regexp.MustCompile(`^\.tmp-[0-9]+-[0-9]+$`)

// ownTemp reports whether n is fsx's temporary name (".tmp-<name>-<digits>") for
// one of the names in own.
func ownTemp(n string, own map[string]bool) bool {
	rest, ok := strings.CutPrefix(n, fsx.TempPrefix)
	i := strings.LastIndexByte(rest, '-')
	return ok && i > 0 && own[rest[:i]] && rest[i+1:] != "" && strings.Trim(rest[i+1:], "0123456789") == ""
}

func finish(out Store, info *Info, recs []Record, s Shard) error {
	slices.SortFunc(recs, compareRecords)
	var b bytes.Buffer
	for _, rec := range recs {
		line, err := json.Marshal(rec)
		if err != nil {
			return darkroom.Wrap(darkroom.InternalError, err, "encode record")
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if _, err := out.Write(ManifestName(s), b.Bytes(), true); err != nil {
		return err
	}
	if info.COCO != nil && s.Count <= 1 {
		data, err := formatCOCO(info.COCO, recs)
		if err != nil {
			return err
		}
		if _, err := out.Write(info.COCO.File, data, true); err != nil {
			return err
		}
	}
	if err := out.Remove(JournalName(s)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return darkroom.Wrap(darkroom.Unavailable, err, "remove %s", JournalName(s))
	}
	if err := out.Settle(); err != nil {
		return darkroom.Wrap(darkroom.Unavailable, err, "sync the output folder")
	}
	return nil
}

// writeInfo writes darkroom-dataset.json, or checks that the one there is the same.
func writeInfo(out Store, info *Info) error {
	data, err := json.MarshalIndent(info, "", " ")
	if err != nil {
		return darkroom.Wrap(darkroom.InternalError, err, "encode %s", InfoFile)
	}
	data = append(data, '\n')
	old, err := out.ReadFile(InfoFile)
	switch {
	case err == nil && bytes.Equal(old, data):
		return nil
	case err == nil:
		e := darkroom.Errorf(darkroom.StateError, "the output folder holds a run with another recipe, seed, variant count or input labels (%s differs); use a new folder", InfoFile)
		e.Details = map[string]any{"file": InfoFile}
		return e
	case !errors.Is(err, fs.ErrNotExist):
		return darkroom.Wrap(darkroom.Unavailable, err, "read %s", InfoFile)
	}
	_, err = out.Write(InfoFile, data, true)
	return err
}

func writeIfChanged(out Store, name string, data []byte) error {
	if old, err := out.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return nil
	}
	_, err := out.Write(name, data, true)
	return err
}

// writeFile writes name atomically and durably through darkroom's one writer
// (fsx.WriteFileIn): a temporary file in the same folder, fsynced, renamed over
// name, and the folder fsynced. Its temporary name is unique, and owned by this
// process while it lives, so shards sharing an output folder never write the same
// one and a sweep never takes a live one.
func writeFile(out *os.Root, name string, data []byte) (FileRef, error) {
	return writeAtomic(out, name, data, true)
}

// writeVariantFile is writeFile without waiting for the disk: the two fsyncs cost
// a variant more than its augmentation. The caller hands the file to behind, which
// makes it durable while the run goes on, and before the manifest names it. Until
// then a power loss may undo the file or its rename; a rerun reuses a record only
// after finding each of its files with the recorded size and SHA-256, and makes the
// variant again otherwise.
func writeVariantFile(out *os.Root, name string, data []byte) (FileRef, error) {
	return writeAtomic(out, name, data, false)
}

func writeAtomic(out *os.Root, name string, data []byte, durable bool) (FileRef, error) {
	dir := path.Dir(name)
	if err := out.MkdirAll(dir, 0o755); err != nil {
		return FileRef{}, darkroom.Wrap(darkroom.Unavailable, err, "create folder %s", dir)
	}
	if err := fsx.WriteFileIn(out, name, data, durable); err != nil {
		return FileRef{}, darkroom.Wrap(darkroom.Unavailable, err, "write %s", name)
	}
	sum := sha256.Sum256(data)
	return FileRef{Path: name, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, nil
}

func syncDir(out *os.Root, dir string) error { return fsx.SyncDirIn(out, dir) }
