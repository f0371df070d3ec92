package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Limits on what one input file may hold; over them is limit_exceeded.
const (
	MaxImageBytes = 512 << 20 // one source image
	MaxLabelBytes = 64 << 20  // one YOLO, VOC, data.yaml or mask file
	MaxCOCOBytes  = 1 << 30   // the folder's COCO file
)

var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".tif": true, ".tiff": true, ".webp": true, ".gif": true, ".dng": true}

// Info is what a dataset's output shares across all its images and shards: it is
// written to darkroom-dataset.json, and every shard of one run writes the same.
type Info struct {
	// Recipe identifies the augmentation (the caller's canonical form of its prompt,
	// preset or pipeline); a rerun into the same output must give the same one.
	Recipe   string `json:"recipe"`
	Seed     uint64 `json:"seed"`
	Variants int    `json:"variants"`
	// Classes are the class names of classes.txt or data.yaml (YOLO; VOC objects get
	// the index of their name in it as Class, or -1).
	Classes []string `json:"classes,omitempty"`
	// NamesFiles are the YOLO names files found at the input's top (classes.txt,
	// data.yaml), copied verbatim to the output's top.
	NamesFiles []string `json:"names_files,omitempty"`
	// KeypointDim is the number of values per YOLO keypoint (2 or 3; 0 guesses).
	KeypointDim int       `json:"keypoint_dim,omitempty"`
	COCO        *cocoMeta `json:"coco,omitempty"`
}

// Dataset is an input folder: its images, sorted by relative path, and where their
// labels are. Open reads the folder-wide label files; each image's own labels are
// read when the image is processed.
type Dataset struct {
	fsys   fs.FS
	Images []string
	info   Info
	files  map[string]bool
	coco   *cocoSet
	bad    map[string]error // images refused at discovery (an ambiguous stem)
	vocIDs map[string]int
	// Unread are the files that look like labels but label no image, or are in a
	// format not read (see unreadLabels): a run reports them with its skipped images.
	Unread []Skip
}

// Open lists a dataset folder. Images are files with the extensions jpg, jpeg, png,
// tif, tiff, webp and gif (any case), anywhere under the folder except under the
// top-level masks/ folder and under hidden (dot) folders. Label files:
//
//   - YOLO: <dir>/<stem>.txt beside the image; class names from classes.txt or
//     data.yaml at the folder's top.
//   - Pascal VOC: <dir>/<stem>.xml beside the image.
//   - COCO: one instances file at the folder's top, a .json whose object has an
//     "images" list; it labels every image it names, and then .txt and .xml files
//     are not read.
//   - Masks: masks/<dir>/<stem>.png, the same size as the image.
//
// Symbolic links are not followed, files or folders: pass the fs.FS of an os.Root
// (Root.FS) so that nothing outside the folder can be reached either way. An image
// the COCO file does not name is augmented without labels and is not in the output
// COCO file.
//
// Two images with the same stem in one folder (cat.jpg, cat.png) cannot tell their
// labels or variants apart: both are refused (reported per image). A folder with two
// COCO files, or a COCO or data.yaml file that cannot be read, is an error here.
func Open(fsys fs.FS) (*Dataset, error) {
	d := &Dataset{fsys: fsys, files: map[string]bool{}, bad: map[string]error{}}
	var cocoFiles []string
	err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return ioErr(err, "list %s", p)
		}
		if p == "." {
			return nil
		}
		if e.IsDir() {
			if strings.HasPrefix(e.Name(), ".") || p == "masks" {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			return nil
		}
		d.files[p] = true
		ext := strings.ToLower(path.Ext(p))
		switch {
		case imageExts[ext]:
			d.Images = append(d.Images, p)
		case ext == ".json" && !strings.Contains(p, "/"):
			if ok, err := isCOCO(fsys, p); err != nil {
				return err
			} else if ok {
				cocoFiles = append(cocoFiles, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Masks are looked up by name, not listed, but must exist as regular files.
	_ = fs.WalkDir(fsys, "masks", func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			d.files[p] = true
		}
		return nil
	})
	sort.Strings(d.Images)
	stems := map[string][]string{}
	for _, p := range d.Images {
		stems[stemOf(p)] = append(stems[stemOf(p)], p)
	}
	for _, ps := range stems {
		if len(ps) > 1 {
			for _, p := range ps {
				e := darkroom.Errorf(darkroom.InvalidInput, "%s: %d images share the stem %s (%s); rename all but one", p, len(ps), path.Base(stemOf(p)), strings.Join(ps, ", "))
				e.Details = map[string]any{"file": p}
				d.bad[p] = e
			}
		}
	}
	sort.Strings(cocoFiles)
	switch len(cocoFiles) {
	case 0:
	case 1:
		data, err := readLimited(fsys, cocoFiles[0], MaxCOCOBytes, false)
		if err != nil {
			return nil, err
		}
		if d.coco, err = parseCOCO(cocoFiles[0], data, d.Images); err != nil {
			return nil, err
		}
		d.info.COCO = &d.coco.meta
	default:
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%d COCO files (%s): a folder has at most one", len(cocoFiles), strings.Join(cocoFiles, ", "))
	}
	if d.coco == nil {
		if err := d.readNames(); err != nil {
			return nil, err
		}
	}
	d.vocIDs = map[string]int{}
	for i, c := range d.info.Classes {
		d.vocIDs[c] = i
	}
	cocoFile := ""
	if len(cocoFiles) == 1 {
		cocoFile = cocoFiles[0]
	}
	d.Unread = d.unreadLabels(cocoFile)
	return d, nil
}

// Info is what the dataset's output will share (darkroom-dataset.json), before a
// run adds its recipe, seed and variant count.
func (d *Dataset) Info() Info { return d.info }

// readNames reads the YOLO class names and, for VOC, numbers the object names in
// order of first appearance over all images (not only a shard's), so every shard
// agrees.
func (d *Dataset) readNames() error {
	if d.files["data.yaml"] {
		data, err := readLimited(d.fsys, "data.yaml", MaxLabelBytes, false)
		if err != nil {
			return err
		}
		if d.info.Classes, d.info.KeypointDim, err = ParseDataYAML("data.yaml", data); err != nil {
			return err
		}
		d.info.NamesFiles = append(d.info.NamesFiles, "data.yaml")
	}
	if d.files["classes.txt"] {
		data, err := readLimited(d.fsys, "classes.txt", MaxLabelBytes, false)
		if err != nil {
			return err
		}
		d.info.Classes = ParseClassesTxt(data)
		d.info.NamesFiles = append(d.info.NamesFiles, "classes.txt")
	}
	return nil
}

func isCOCO(fsys fs.FS, p string) (bool, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return false, ioErr(err, "open %s", p)
	}
	defer f.Close()
	// A COCO file is an object with an "images" key; reading tokens up to that key
	// keeps a big unrelated JSON file from being loaded just to be told apart.
	dec := json.NewDecoder(io.LimitReader(f, MaxCOCOBytes))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false, nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false, nil
		}
		if k == "images" {
			return true, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false, nil
		}
	}
	return false, nil
}

// ioErr codes a failure to read an input file: not_found (it went away since the
// listing), permission_error (the user may not read it), else unavailable (an I/O
// error; retrying may succeed). The fs.FS's errors name paths relative to the folder.
func ioErr(err error, format string, args ...any) *darkroom.Error {
	code := darkroom.Unavailable
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = darkroom.NotFound
	case errors.Is(err, fs.ErrPermission):
		code = darkroom.PermissionError
	}
	e := darkroom.Wrap(code, err, format, args...)
	if len(args) > 0 {
		if f, ok := args[0].(string); ok {
			e.Details = map[string]any{"file": f}
		}
	}
	return e
}

func stemOf(p string) string { return strings.TrimSuffix(p, path.Ext(p)) }

// readLimited reads a file of at most limit bytes. When pooled is true the bytes
// are read into a buffer from the scratch pool, for the caller to give back.
func readLimited(fsys fs.FS, name string, limit int64, pooled bool) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, ioErr(err, "open %s", name)
	}
	defer f.Close()
	// Sized from the file's length where it says one, so a photo is read into one
	// buffer instead of a dozen doubling ones (each cleared, then copied), and that
	// buffer a finished image's where one is large enough (see scratch).
	n := 0
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= limit {
		n = int(fi.Size()) + bytes.MinRead
	}
	var buf *bytes.Buffer
	if pooled {
		buf = bytes.NewBuffer(scratch.Get(n))
	} else {
		buf = bytes.NewBuffer(make([]byte, 0, n))
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, ioErr(err, "read %s", name)
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		e := darkroom.Errorf(darkroom.LimitExceeded, "%s is over %d bytes", name, limit)
		e.Details = map[string]any{"file": name, "limit": limit}
		return nil, e
	}
	return data, nil
}

// source is one image read for processing: its bytes, size and labels.
type source struct {
	data   []byte
	labels Labels
	kdim   int // numbers per YOLO keypoint in the label file, to write them back alike
	// ultralytics says the YOLO labels came from the Ultralytics layout's labels/
	// tree, where the variants' labels go too.
	ultralytics bool
	cocoID      json.Number // the source's COCO image id
}

// load reads an image and its labels. Any error is the image's own (coded), to be
// reported and skipped.
func (d *Dataset) load(rel string) (*source, error) {
	if err := d.bad[rel]; err != nil {
		return nil, err
	}
	data, err := readLimited(d.fsys, rel, MaxImageBytes, true)
	if err != nil {
		return nil, err
	}
	// The header only (engine.ReadHeader: the format, a size with pixels and
	// within the engine's pixel cap): the AugmentFunc decodes the pixels.
	hd, err := engine.ReadHeader(data, 0)
	if err != nil {
		code := darkroom.RenderError
		if darkroom.Code(err) == darkroom.LimitExceeded {
			code = darkroom.LimitExceeded
		}
		e := darkroom.Wrap(code, err, "%s is not a readable image", rel)
		e.Details = map[string]any{"file": rel}
		return nil, e
	}
	// Labels refer to the image as decoded: upright (EXIF orientation applied) and,
	// for a DNG, developed (DefaultCrop applied), which is the header's upright size.
	s := &source{data: data, labels: Labels{Width: hd.UprightWidth, Height: hd.UprightHeight}}
	if err := d.readLabels(rel, s); err != nil {
		return nil, err
	}
	return s, nil
}

func (d *Dataset) readLabels(rel string, s *source) error {
	l := &s.labels
	stem := stemOf(rel)
	w, h := l.Width, l.Height
	if d.coco != nil {
		if err := d.coco.errs[rel]; err != nil {
			return err
		}
		if objs, ok := d.coco.objects[rel]; ok {
			l.Format, l.Objects = FormatCOCO, cloneObjects(objs)
			s.cocoID = d.coco.ids[rel]
			im, ok, err := instanceMap(l.Objects, d.coco.segms[rel], w, h)
			if err != nil {
				return labelErr(d.info.COCO.File, "image %s: %v", rel, err)
			}
			if ok {
				l.Instances = im
			}
		}
	} else {
		txt, xmlf := d.files[stem+".txt"], d.files[stem+".xml"]
		txtName := stem + ".txt"
		if u := ultralyticsLabel(rel); !txt && !xmlf && u != "" && d.files[u] {
			txt, txtName, s.ultralytics = true, u, true
		}
		switch {
		case txt && xmlf:
			return labelErr(stem+".txt", "and %s.xml both label %s; keep one", path.Base(stem), rel)
		case txt:
			data, err := readLimited(d.fsys, txtName, MaxLabelBytes, false)
			if err != nil {
				return err
			}
			objs, err := ParseYOLO(txtName, data, w, h, d.info.KeypointDim)
			if err != nil {
				return err
			}
			s.kdim = yoloKeypointDim(data, d.info.KeypointDim)
			for i := range objs {
				if c := objs[i].Class; c < len(d.info.Classes) {
					objs[i].Name = d.info.Classes[c]
				} else if len(d.info.Classes) > 0 {
					return labelErr(txtName, "class %d is not in the %d class names", c, len(d.info.Classes))
				}
			}
			l.Format, l.Objects = FormatYOLO, objs
		case xmlf:
			data, err := readLimited(d.fsys, stem+".xml", MaxLabelBytes, false)
			if err != nil {
				return err
			}
			objs, _, err := ParseVOC(stem+".xml", data)
			if err != nil {
				return err
			}
			for i := range objs {
				objs[i].Class = d.vocClass(objs[i].Name)
			}
			l.Format, l.Objects = FormatVOC, objs
		}
	}
	if m := path.Join("masks", stem+".png"); d.files[m] {
		data, err := readLimited(d.fsys, m, MaxLabelBytes, false)
		if err != nil {
			return err
		}
		if l.Mask, err = ParseMask(m, data, w, h); err != nil {
			return err
		}
		if l.Instances != nil {
			return labelErr(m, "and the COCO segmentation both label %s: one label mask per image is moved; keep one", rel)
		}
	}
	return nil
}

// yoloKeypointDim is the number of values per keypoint ParseYOLO read: the dataset's
// (data.yaml kpt_shape) or, when it has none, the guess ParseYOLO made on the first
// line with keypoints.
func yoloKeypointDim(data []byte, kdim int) int {
	if kdim != 0 {
		return kdim
	}
	for _, line := range strings.Split(string(data), "\n") {
		if n := len(strings.Fields(line)) - 5; n > 0 {
			if n%3 == 0 {
				return 3
			}
			return 2
		}
	}
	return 3
}

// vocClass is the index of a VOC object name in the classes.txt names when there
// are some, else -1: VOC writes names, so the index only helps an AugmentFunc that
// wants numbers.
func (d *Dataset) vocClass(name string) int {
	if i, ok := d.vocIDs[name]; ok {
		return i
	}
	return -1
}
