package dataset_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing/fstest"

	"github.com/darkroom-mcp/darkroom/internal/dataset"
)

// How the augmentation plugs in: one function value that turns a Job into a Result.
// This one mirrors the image left-right and moves the boxes with it.
func ExampleRun() {
	var src bytes.Buffer
	png.Encode(&src, image.NewGray(image.Rect(0, 0, 100, 50)))
	input := fstest.MapFS{
		"street/0001.png": {Data: src.Bytes()},
		"street/0001.txt": {Data: []byte("0 0.25 0.5 0.1 0.2\n")},
		"classes.txt":     {Data: []byte("car\n")},
	}
	mirror := func(ctx context.Context, job dataset.Job) (dataset.Result, error) {
		img, err := png.Decode(bytes.NewReader(job.Image))
		if err != nil {
			return dataset.Result{}, err
		}
		b := img.Bounds()
		out := image.NewGray(b)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				out.Set(b.Max.X-1-x, y, img.At(x, y))
			}
		}
		var enc bytes.Buffer
		png.Encode(&enc, out)
		labels := job.Labels
		for i, o := range labels.Objects {
			labels.Objects[i].Box = [4]float64{float64(b.Dx()) - o.Box[2], o.Box[1], float64(b.Dx()) - o.Box[0], o.Box[3]}
		}
		return dataset.Result{Image: enc.Bytes(), Labels: labels, Params: json.RawMessage(`{"mirror":true}`)}, nil
	}

	d, err := dataset.Open(input)
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	out, _ := os.OpenRoot(dir)
	defer out.Close()
	rep, err := dataset.Run(context.Background(), d, out, dataset.Options{Recipe: "mirror", Seed: 42, Variants: 2, Augment: mirror})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d images, %d variants written, manifest %s\n", rep.Images, rep.Written, rep.Manifest)
	f, _ := os.Open(filepath.Join(dir, rep.Manifest))
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r dataset.Record
		json.Unmarshal(sc.Bytes(), &r)
		fmt.Println(r.Source, r.Variant, r.Seed, string(r.Params), r.Output, r.Labels[0].Path)
	}
	label, _ := os.ReadFile(filepath.Join(dir, "street/0001_v0.txt"))
	fmt.Print(string(label))
	// Output:
	// 1 images, 2 variants written, manifest manifest.jsonl
	// street/0001.png 0 3992553325010782 {"mirror":true} street/0001_v0.png street/0001_v0.txt
	// street/0001.png 1 735736166314707 {"mirror":true} street/0001_v1.png street/0001_v1.txt
	// 0 0.750000 0.500000 0.100000 0.200000
}
