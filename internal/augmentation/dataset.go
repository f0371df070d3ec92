package augmentation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"time"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
	"github.com/darkroom-mcp/darkroom/internal/dataset"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// DatasetRequest is one augment_dataset call in domain terms.
type DatasetRequest struct {
	Input  string // a folder under an allowed root
	Output string // a relative path under the workspace's datasets/
	// The recipe: exactly one of Prompt, Preset and Pipeline.
	Prompt   string
	Preset   string
	Pipeline augment.Pipeline
	// Albumentations is a pipeline as A.to_dict writes it, instead of Pipeline.
	Albumentations []byte
	Variants       int
	Seed           uint64
	Shard          string // "i/N", "" for the whole folder
	Format         string // png, jpeg or keep
	Workers        int    // 0: every core
	// Shared says the run shares the process with other callers (a server's): each
	// image then takes a bulk turn (engine.Bulk), so the run leaves them a core.
	Shared   bool
	Progress func(dataset.Progress)
}

// DatasetResult is what a dataset run did.
type DatasetResult struct {
	Output   string // relative to the workspace
	Manifest string // relative to the workspace
	Shard    string
	Report   *dataset.Report
	Elapsed  time.Duration
	// Unread are the prompt's words no step took (see Augmented.Unread).
	Unread []augment.Skipped
	// Skipped are the albumentations transforms and parameters darkroom cannot do.
	Skipped []augment.Skipped
}

// AugmentDataset augments every image of a folder (dataset.Run) with the recipe,
// writing under the workspace's datasets/<Output>/.
func (s *Service) AugmentDataset(ctx context.Context, req DatasetRequest) (DatasetResult, error) {
	start := time.Now()
	ws, err := s.RequireWorkspace()
	if err != nil {
		return DatasetResult{}, err
	}
	shard := dataset.Shard{Index: 0, Count: 1}
	if req.Shard != "" {
		if shard, err = dataset.ParseShard(req.Shard); err != nil {
			return DatasetResult{}, err
		}
	}
	in, inCloser, err := ws.DatasetInput(ctx, req.Input)
	if err != nil {
		return DatasetResult{}, err
	}
	defer inCloser.Close()
	out, shown, outCloser, err := ws.DatasetStore(ctx, req.Output, req.Input)
	if err != nil {
		return DatasetResult{}, err
	}
	defer outCloser.Close()
	d, err := dataset.Open(in)
	if err != nil {
		return DatasetResult{}, err
	}
	// The recipe is fixed before the run: a prompt is read once, without an image
	// size (a size in pixels is refused: sizes are fractions of each image's edge).
	var albu *albuRecipe
	if req.Albumentations != nil {
		if req.Prompt != "" || req.Preset != "" {
			return DatasetResult{}, darkroom.FieldError("prompt", "give exactly one of prompt, preset or pipeline")
		}
		if albu, err = s.newAlbuRecipe(req.Albumentations); err != nil {
			return DatasetResult{}, err
		}
		req.Pipeline = albu.nominal.Pipeline
	}
	recipe, pipeline, unread, err := s.recipe(AugmentRequest{Prompt: req.Prompt, Preset: req.Preset, Pipeline: req.Pipeline}, 0, 0)
	if err != nil {
		return DatasetResult{}, err
	}
	for i, st := range pipeline {
		if _, err := s.LookupEntry(fmt.Sprintf("pipeline[%d].entry", i), st.Entry); err != nil {
			return DatasetResult{}, err
		}
	}
	aug := s.Augmenter()
	if err := aug.Check(pipeline); err != nil {
		return DatasetResult{}, err
	}
	canon, err := json.Marshal(pipeline)
	if err != nil {
		return DatasetResult{}, darkroom.Wrap(darkroom.InternalError, err, "encode the pipeline")
	}
	if albu != nil && albu.nominal.SizeDependent {
		canon = append([]byte("albumentations:"), albu.raw...) // read again at each image's size
	}
	format := req.Format
	if format == "" {
		format = "png"
	}
	if format != "keep" {
		if format, err = augment.Format(format); err != nil {
			return DatasetResult{}, err
		}
	}
	_ = recipe
	report, err := dataset.RunTo(ctx, d, out, dataset.Options{
		// The recipe's identity includes the contract version: an upgraded darkroom
		// does not reuse outputs an older one made.
		Recipe:   fmt.Sprintf("darkroom %s format=%s pipeline=%s", s.Facts.Version, format, canon),
		Seed:     req.Seed,
		Variants: req.Variants,
		Shard:    shard,
		Workers:  req.Workers,
		Augment:  datasetAugment(aug, pipeline, albu, format, req.Shared),
		Progress: req.Progress,
	})
	if err != nil {
		return DatasetResult{}, err
	}
	res := DatasetResult{Output: shown, Report: report, Elapsed: time.Since(start), Unread: unread, Skipped: albu.Skipped()}
	res.Manifest = path.Join(filepath.ToSlash(res.Output), report.Manifest)
	if dataset.IsBucketURL(shown) {
		res.Manifest = shown + "/" + report.Manifest
	}
	if req.Shard != "" {
		res.Shard = shard.String()
	}
	return res, nil
}

// datasetAugment is the dataset runner's AugmentFunc: decode the source, move its
// objects (boxes, keypoints) and mask through variant 0 of the pipeline drawn with
// the job's own seed, encode. A shared run's job waits for a bulk turn first.
func datasetAugment(aug *augment.Augmenter, p augment.Pipeline, albu *albuRecipe, format string, shared bool) dataset.AugmentFunc {
	return func(ctx context.Context, job dataset.Job) (dataset.Result, error) {
		if shared {
			// Jobs take bulk turns, one core fewer than there are: the job holding
			// one splits its rows over the free cores, as an augment_image variant.
			end, err := engine.Bulk(ctx)
			if err != nil {
				return dataset.Result{}, darkroom.Wrap(darkroom.Unavailable, err, "%s: cancelled waiting for a core", job.Source)
			}
			defer end()
		} else {
			// One job per worker, one worker per core: the job keeps to its core.
			defer engine.Occupy()()
		}
		res, err := reserveDatasetJob(ctx, aug, p, job)
		if err != nil {
			return dataset.Result{}, err
		}
		defer res.Release()
		src, err := engine.Decode(job.Image, engine.DecodeOptions{Context: ctx, Reserved: res.Bytes})
		if err != nil {
			if darkroom.Code(err) == darkroom.InvalidInput {
				return dataset.Result{}, darkroom.Wrap(darkroom.RenderError, err, "%s is not an image darkroom can decode", job.Source)
			}
			return dataset.Result{}, err
		}
		ann, kps, err := toAnnotations(job.Labels)
		if err != nil {
			return dataset.Result{}, err
		}
		p := p
		if albu != nil && albu.nominal.SizeDependent {
			if p, err = albu.at(src.Image.W, src.Image.H); err != nil {
				engine.Recycle(src.Image)
				return dataset.Result{}, err
			}
		}
		// The decoded image is this call's own: the variant may change it in place.
		v, err := aug.VariantOwned(src.Image, p, job.Seed, 0, ann)
		if err != nil {
			engine.Recycle(src.Image)
			return dataset.Result{}, err
		}
		f := format
		if f == "keep" {
			f = src.Format
			if f != "jpeg" && f != "png" && f != "webp" {
				f = "png"
			}
		}
		// The variant's file is about the size of its source: one buffer, not a
		// dozen doubling ones, and the runner's reused one when it gives one.
		buf := bytes.NewBuffer(job.Out[:0])
		if cap(job.Out) == 0 {
			buf.Grow(len(job.Image))
		}
		err = augment.Encode(buf, v.Image, f, 90)
		// The variant's image (the source's pixels went to it or back to the
		// engine) is this call's own: its pixels go to the next variant.
		engine.Recycle(v.Image)
		if err != nil {
			return dataset.Result{}, err
		}
		labels, err := fromAnnotations(job.Labels, v, kps)
		if err != nil {
			return dataset.Result{}, err
		}
		params, err := json.Marshal(v.Applied)
		if err != nil {
			return dataset.Result{}, err
		}
		return dataset.Result{Image: buf.Bytes(), Ext: "." + augment.Ext(f), Labels: labels, Params: params}, nil
	}
}

// reserveDatasetJob reserves from the decode budget what a dataset job holds, from
// the image's header before it is decoded: the decode, the variant's render at the
// largest frame its draws reach (the source is given up to it), the encoder's copy,
// and the label mask with its moved copy.
func reserveDatasetJob(ctx context.Context, aug *augment.Augmenter, p augment.Pipeline, job dataset.Job) (*engine.Reservation, error) {
	hd, err := engine.ReadHeader(job.Image, 0)
	if err != nil {
		if darkroom.Code(err) == darkroom.InvalidInput {
			return nil, darkroom.Wrap(darkroom.RenderError, err, "%s is not an image darkroom can decode", job.Source)
		}
		return nil, err
	}
	w, h := hd.UprightWidth, hd.UprightHeight
	pw, ph := aug.PeakFrame(w, h, p, job.Seed, 1)
	n := hd.DecodeCost() + 2*engine.FloatBytes(pw, ph) + encodeBytes(pw, ph)
	if job.Labels.Mask != nil {
		n += 4*int64(w)*int64(h) + 3*int64(pw)*int64(ph)
	}
	return engine.Reserve(ctx, "augment_dataset", fmt.Sprintf("%s (%dx%d)", job.Source, w, h), n)
}

// kpIndex says which object and which of its keypoints a flat keypoint index is.
type kpIndex struct{ obj, k int }

// toAnnotations turns a dataset's objects into augment annotations: one pascal_voc
// box per object (labelled by its index) and every labelled keypoint (a keypoint of
// visibility 0 has no position to move), plus the mask.
func toAnnotations(l dataset.Labels) (*augment.Annotations, []kpIndex, error) {
	if len(l.Objects) == 0 && l.Mask == nil && l.Instances == nil {
		return nil, nil, nil
	}
	a := &augment.Annotations{}
	var kps []kpIndex
	if len(l.Objects) > 0 {
		a.Boxes = &augment.Boxes{Format: "pascal_voc"}
		for i, o := range l.Objects {
			a.Boxes.Boxes = append(a.Boxes.Boxes, o.Box)
			a.Boxes.Labels = append(a.Boxes.Labels, i)
			for k, kp := range o.Keypoints {
				if kp.V == 0 {
					continue
				}
				if a.Keypoints == nil {
					a.Keypoints = &augment.Keypoints{}
				}
				a.Keypoints.Points = append(a.Keypoints.Points, [2]float64{kp.X, kp.Y})
				a.Keypoints.Labels = append(a.Keypoints.Labels, len(kps))
				kps = append(kps, kpIndex{i, k})
			}
		}
	}
	// One mask moves with a variant: the label mask, or the COCO objects' instance
	// map (the dataset refuses an image with both).
	mask := l.Mask
	if l.Instances != nil {
		mask = l.Instances
	}
	if mask != nil {
		var err error
		if a.Mask, err = augment.MaskFromImage(mask); err != nil {
			return nil, nil, err
		}
	}
	return a, kps, nil
}

// fromAnnotations writes a variant's moved annotations back as the dataset's
// objects: an object whose box was dropped is dropped; a keypoint that left the
// frame stays with visibility 0 (not labelled), as COCO and YOLO-pose write one.
func fromAnnotations(in dataset.Labels, v *augment.Variant, kps []kpIndex) (dataset.Labels, error) {
	out := dataset.Labels{Width: v.OutW, Height: v.OutH}
	if v.Annotations == nil {
		return out, nil
	}
	moved := map[kpIndex][2]float64{}
	if k := v.Annotations.Keypoints; k != nil {
		for i, p := range k.Points {
			idx, _ := k.Labels[i].(int)
			moved[kps[idx]] = p
		}
	}
	if b := v.Annotations.Boxes; b != nil {
		for i, box := range b.Boxes {
			oi, _ := b.Labels[i].(int)
			o := in.Objects[oi]
			o.Box = box
			o.Keypoints = append([]dataset.Keypoint(nil), o.Keypoints...)
			for k := range o.Keypoints {
				if p, ok := moved[kpIndex{oi, k}]; ok {
					o.Keypoints[k].X, o.Keypoints[k].Y = p[0], p[1]
				} else {
					o.Keypoints[k] = dataset.Keypoint{}
				}
			}
			out.Objects = append(out.Objects, o)
		}
	}
	if m := v.Annotations.Mask; m != nil {
		if in.Instances != nil {
			out.Instances = m.Image()
		} else {
			out.Mask = m.Image()
		}
	}
	return out, nil
}
