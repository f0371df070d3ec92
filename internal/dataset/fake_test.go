package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// flipBright is the test's AugmentFunc: a real, deterministic transformation driven
// only by the job's seed. Odd seeds flip the image left-right (and its boxes,
// keypoints and mask with it); every seed shifts brightness by a seed-dependent
// amount in [-30, 30]. The output is always PNG.
func flipBright(ctx context.Context, job Job) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	src, _, err := image.Decode(bytes.NewReader(job.Image))
	if err != nil {
		return Result{}, darkroom.Wrap(darkroom.RenderError, err, "decode %s", job.Source)
	}
	flip := job.Seed&1 == 1
	delta := int(job.Seed>>1%61) - 30
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	shift := func(c uint8) uint8 { return uint8(min(255, max(0, int(c)+delta))) }
	for y := range h {
		for x := range w {
			c := color.NRGBAModel.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			dx := x
			if flip {
				dx = w - 1 - x
			}
			dst.SetNRGBA(dx, y, color.NRGBA{shift(c.R), shift(c.G), shift(c.B), c.A})
		}
	}
	out := bytes.NewBuffer(job.Out) // the runner's reused buffer, as darkroom's own AugmentFunc uses it
	if err := png.Encode(out, dst); err != nil {
		return Result{}, err
	}
	l := Labels{Width: w, Height: h}
	for _, o := range job.Labels.Objects {
		o.Keypoints = append([]Keypoint(nil), o.Keypoints...)
		if flip {
			o.Box = [4]float64{float64(w) - o.Box[2], o.Box[1], float64(w) - o.Box[0], o.Box[3]}
			for i := range o.Keypoints {
				o.Keypoints[i].X = float64(w) - o.Keypoints[i].X
			}
		}
		l.Objects = append(l.Objects, o)
	}
	if m := job.Labels.Mask; m != nil {
		mb := m.Bounds()
		g := image.NewGray(image.Rect(0, 0, mb.Dx(), mb.Dy()))
		for y := range mb.Dy() {
			for x := range mb.Dx() {
				dx := x
				if flip {
					dx = mb.Dx() - 1 - x
				}
				g.Set(dx, y, color.GrayModel.Convert(m.At(mb.Min.X+x, mb.Min.Y+y)))
			}
		}
		l.Mask = g
	}
	if m := job.Labels.Instances; m != nil {
		// The instance map moves like the mask, its 16-bit values kept.
		mb := m.Bounds()
		g := image.NewGray16(image.Rect(0, 0, mb.Dx(), mb.Dy()))
		for y := range mb.Dy() {
			for x := range mb.Dx() {
				dx := x
				if flip {
					dx = mb.Dx() - 1 - x
				}
				g.Set(dx, y, color.Gray16Model.Convert(m.At(mb.Min.X+x, mb.Min.Y+y)))
			}
		}
		l.Instances = g
	}
	params, _ := json.Marshal(map[string]any{"flip": flip, "brightness": delta})
	return Result{Image: out.Bytes(), Ext: ".png", Labels: l, Params: params}, nil
}

// testImage is a w x h picture whose pixels depend on n, so images differ.
func testImage(w, h, n int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetNRGBA(x, y, color.NRGBA{uint8(x*7 + n*31), uint8(y*5 + n*17), uint8((x + y + n) * 3), 255})
		}
	}
	return m
}

func encode(t *testing.T, format string, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, m)
	case "jpg":
		err = jpeg.Encode(&b, m, &jpeg.Options{Quality: 90})
	case "gif":
		err = gif.Encode(&b, m, nil)
	case "tif":
		err = tiff.Encode(&b, m, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree maps every file under dir to its SHA-256.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		got[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:8])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// mixedInput is a folder with every label format, and images that must be skipped.
func mixedInput(t *testing.T) string {
	t.Helper()
	mask := image.NewGray(image.Rect(0, 0, 40, 30))
	for y := 10; y < 20; y++ {
		for x := 0; x < 10; x++ {
			mask.SetGray(x, y, color.Gray{3})
		}
	}
	files := map[string][]byte{
		"classes.txt":      []byte("cat\ndog\n"),
		"a/cat.png":        encode(t, "png", testImage(40, 30, 1)),
		"a/cat.txt":        []byte("0 0.250000 0.500000 0.200000 0.400000\n1 0.750000 0.250000 0.100000 0.100000\n"),
		"a/dog.jpg":        encode(t, "jpg", testImage(48, 32, 2)),
		"a/dog.txt":        []byte("1 0.5 0.5 1 1\n"),
		"b/bird.png":       encode(t, "png", testImage(40, 30, 3)),
		"b/bird.xml":       []byte("<annotation><filename>bird.png</filename><size><width>40</width><height>30</height><depth>3</depth></size><object><name>dog</name><difficult>1</difficult><bndbox><xmin>5</xmin><ymin>3</ymin><xmax>14</xmax><ymax>20</ymax></bndbox></object></annotation>"),
		"b/fish.png":       encode(t, "png", testImage(40, 30, 4)),
		"masks/b/fish.png": encode(t, "png", mask),
		"c/broken.png":     []byte("\x89PNG\r\n\x1a\nnot really"),
		"c/badlabel.png":   encode(t, "png", testImage(20, 20, 5)),
		"c/badlabel.txt":   []byte("0 0.5 0.5 0.2 0.2\n0 0.5 0.5\n"),
		"d/twin.png":       encode(t, "png", testImage(20, 20, 6)),
		"d/twin.jpg":       encode(t, "jpg", testImage(20, 20, 6)),
		"e/anim.gif":       encode(t, "gif", testImage(24, 16, 7)),
		"e/scan.tif":       encode(t, "tif", testImage(24, 16, 8)),
		".hidden/x.png":    encode(t, "png", testImage(8, 8, 9)),
		"notes.md":         []byte("not an image"),
	}
	for i := range 10 {
		files[fmt.Sprintf("n/img%02d.png", i)] = encode(t, "png", testImage(16+i, 12, 10+i))
		files[fmt.Sprintf("n/img%02d.txt", i)] = []byte(fmt.Sprintf("%d 0.5 0.5 0.5 0.5\n", i%2))
	}
	dir := t.TempDir()
	writeTree(t, dir, files)
	return dir
}

// cocoInput is a COCO folder: annotations.json over png images, with keypoints, one
// image the file does not name and one with a bad annotation.
func cocoInputDir(t *testing.T) string {
	t.Helper()
	files := map[string][]byte{}
	var images, anns []string
	for i := range 9 {
		name := fmt.Sprintf("img%d.png", i)
		files["imgs/"+name] = encode(t, "png", testImage(32, 24, i))
		if i == 8 {
			continue // not in the COCO file
		}
		images = append(images, fmt.Sprintf(`{"id": %d, "file_name": "imgs/%s", "width": 32, "height": 24}`, 100+i, name))
		cat := 1 + i%2
		if i == 5 {
			cat = 9 // no such category: img5 is skipped
		}
		anns = append(anns, fmt.Sprintf(`{"id": %d, "image_id": %d, "category_id": %d, "bbox": [2, 3, 10.5, 8], "area": 84, "iscrowd": 0, "keypoints": [4, 5, 2, 9, 6, 1], "num_keypoints": 2}`, 1000+i, 100+i, cat))
	}
	files["annotations.json"] = []byte(`{"info": {"description": "test"}, "licenses": [],
"images": [` + strings.Join(images, ",\n") + `],
"annotations": [` + strings.Join(anns, ",\n") + `],
"categories": [{"id": 1, "name": "cat", "supercategory": "animal", "keypoints": ["eye", "ear"]}, {"id": 2, "name": "dog"}]}`)
	dir := t.TempDir()
	writeTree(t, dir, files)
	return dir
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func openDataset(t *testing.T, dir string) *Dataset {
	t.Helper()
	d, err := Open(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run augments in into a new folder and returns the folder and the report.
func run(t *testing.T, in string, opts Options) (string, *Report) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), openDataset(t, in), openRoot(t, out), opts)
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}
