package augment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// TestOpenCVParity checks, where albumentations 1.3.1 is a thin layer over OpenCV, that
// darkroom's reading of the albumentations transform renders what albumentations'
// formula computes through OpenCV (testdata/opencv/reference.py, Debian's
// python3-opencv), within the tolerances of scripts/albumentations/parity.py, which
// measures the same against albumentations itself (docs/albumentations.md). Skipped
// without python3-opencv, failed under CI=true.
func TestOpenCVParity(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import cv2, numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3-opencv is not available and CI=true (apt-get install python3-opencv python3-numpy)")
		}
		t.Skip("python3-opencv is not available (apt-get install python3-opencv python3-numpy)")
	}
	srcPath := filepath.Join("..", "..", "samples", "coffee.png")
	data, err := os.ReadFile(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	src, err := engine.Decode(data, engine.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, h := src.Image.W, src.Image.H
	const reflect101, constant = 4, 0
	type ref map[string]any
	cases := []struct {
		name, transform string
		ref             ref
		tol             float64
	}{
		{"hflip", `{"__class_fullname__": "HorizontalFlip", "p": 1}`, ref{"op": "hflip"}, 0.5},
		{"vflip", `{"__class_fullname__": "VerticalFlip", "p": 1}`, ref{"op": "vflip"}, 0.5},
		{"transpose", `{"__class_fullname__": "Transpose", "p": 1}`, ref{"op": "transpose"}, 0.5},
		{"rotate_constant", `{"__class_fullname__": "Rotate", "limit": [20, 20], "border_mode": 0, "p": 1}`,
			ref{"op": "shift_scale_rotate", "angle": 20, "border": constant}, 3},
		{"rotate_reflect", `{"__class_fullname__": "Rotate", "limit": [-30, -30], "border_mode": 4, "p": 1}`,
			ref{"op": "shift_scale_rotate", "angle": -30, "border": reflect101}, 3},
		{"shift_scale_rotate", `{"__class_fullname__": "ShiftScaleRotate", "shift_limit_x": [0.05, 0.05], "shift_limit_y": [-0.03, -0.03], "scale_limit": [0.1, 0.1], "rotate_limit": [10, 10], "p": 1}`,
			ref{"op": "shift_scale_rotate", "angle": 10, "scale": 1.1, "dx": 0.05, "dy": -0.03, "border": reflect101}, 3},
		{"center_crop", fmt.Sprintf(`{"__class_fullname__": "CenterCrop", "height": %d, "width": %d, "p": 1}`, h/2, w/2),
			ref{"op": "center_crop", "height": h / 2, "width": w / 2}, 0.5},
		{"pad", fmt.Sprintf(`{"__class_fullname__": "PadIfNeeded", "min_height": %d, "min_width": %d, "p": 1}`, max(w, h)+64, max(w, h)+64),
			ref{"op": "pad", "min_height": max(w, h) + 64, "min_width": max(w, h) + 64}, 1},
		{"pad_constant", fmt.Sprintf(`{"__class_fullname__": "PadIfNeeded", "min_height": %d, "min_width": %d, "border_mode": 0, "value": [114, 114, 114], "p": 1}`, max(w, h)+64, max(w, h)+64),
			ref{"op": "pad", "min_height": max(w, h) + 64, "min_width": max(w, h) + 64, "value": []int{114, 114, 114}}, 1},
		// darkroom resamples with Lanczos, albumentations with OpenCV's bilinear.
		{"resize", fmt.Sprintf(`{"__class_fullname__": "Resize", "height": %d, "width": %d, "p": 1}`, h/2+7, w/2-5),
			ref{"op": "resize", "height": h/2 + 7, "width": w/2 - 5}, 3},
		{"blur", `{"__class_fullname__": "Blur", "blur_limit": [5, 5], "p": 1}`, ref{"op": "blur", "k": 5}, 4},
		{"gaussian_blur", `{"__class_fullname__": "GaussianBlur", "blur_limit": [7, 7], "sigma_limit": 0, "p": 1}`, ref{"op": "gaussian_blur", "k": 7}, 4},
		{"brightness", `{"__class_fullname__": "RandomBrightnessContrast", "brightness_limit": [0.1, 0.1], "contrast_limit": 0, "p": 1}`,
			ref{"op": "brightness", "beta": 0.1}, 1},
		// RandomBrightnessContrast's "contrast" in 1.3.1 is a gain: lut *= 1 + c.
		{"brightness_contrast", `{"__class_fullname__": "RandomBrightnessContrast", "brightness_limit": [-0.1, -0.1], "contrast_limit": [0.2, 0.2], "p": 1}`,
			ref{"op": "brightness", "alpha": 1.2, "beta": -0.1}, 3},
		{"color_jitter_contrast", `{"__class_fullname__": "ColorJitter", "brightness": [1, 1], "contrast": [1.3, 1.3], "saturation": [1, 1], "hue": [0, 0], "p": 1}`,
			ref{"op": "contrast_mean", "factor": 1.3}, 1},
		{"gamma", `{"__class_fullname__": "RandomGamma", "gamma_limit": [150, 150], "p": 1}`, ref{"op": "gamma", "gamma": 1.5}, 1},
		{"rgb_shift", `{"__class_fullname__": "RGBShift", "r_shift_limit": [20, 20], "g_shift_limit": [-10, -10], "b_shift_limit": [0, 0], "p": 1}`,
			ref{"op": "rgb_shift", "shift": []int{20, -10, 0}}, 1},
		{"posterize", `{"__class_fullname__": "Posterize", "num_bits": 4, "p": 1}`, ref{"op": "posterize", "bits": 4}, 1},
		{"invert", `{"__class_fullname__": "InvertImg", "p": 1}`, ref{"op": "invert"}, 1},
	}
	dir := t.TempDir()
	var refs []ref
	for _, c := range cases {
		r := ref{"name": c.name}
		for k, v := range c.ref {
			r[k] = v
		}
		refs = append(refs, r)
	}
	cj, _ := json.Marshal(refs)
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), cj, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, filepath.Join("testdata", "opencv", "reference.py"), srcPath, filepath.Join(dir, "cases.json"), dir).CombinedOutput(); err != nil {
		t.Fatalf("reference.py: %v\n%s", err, out)
	}
	a, m := augmenter(t), albuMap(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := `{"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "p": 1, "transforms": [` + c.transform + `]}}`
			imp, err := m.Import([]byte(raw), a.Vocab, w, h)
			if err != nil {
				t.Fatal(err)
			}
			if len(imp.Skipped) > 0 {
				t.Fatalf("skipped %v", imp.Skipped)
			}
			v, err := a.Variant(src.Image, imp.Pipeline, 1, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Encode(&buf, v.Image, "png", 90); err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(dir, c.name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			want, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			mad, err := meanAbsDiff(got, want)
			if err != nil {
				t.Fatal(err)
			}
			if mad > c.tol {
				t.Errorf("mean absolute difference %.2f grey levels from OpenCV's formula, tolerance %v", mad, c.tol)
			}
			t.Logf("mean absolute difference %.2f (tolerance %v)", mad, c.tol)
		})
	}
}

func meanAbsDiff(a, b image.Image) (float64, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 0, fmt.Errorf("sizes differ: %v and %v", a.Bounds().Size(), b.Bounds().Size())
	}
	var sum float64
	n := 0
	ab, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			for _, d := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}} {
				sum += absDiff(float64(d[0]>>8), float64(d[1]>>8))
				n++
			}
		}
	}
	return sum / float64(n), nil
}

func absDiff(x, y float64) float64 {
	if x > y {
		return x - y
	}
	return y - x
}
