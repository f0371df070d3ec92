// Package augment makes seeded variants of an image from a pipeline of vocabulary
// entries, and moves bounding boxes, keypoints and label masks exactly as the pixels
// move. It knows no MCP: the augment_image tool parses a prompt or a preset into a
// Pipeline (or takes one as given), calls Augmenter.Run, encodes the variants with
// Encode and shapes the reply; errors are darkroom.Error values with the contract's
// codes (contracts/errors.cue).
//
// # Pipelines
//
// A Pipeline is a list of steps, each a vocabulary entry, a fixed value or a range
// [lo, hi] per parameter, and a probability p (1 when omitted). Its JSON is what an
// augmentation writes as config.json and what augment_image takes back as pipeline:
//
//	[
//	  {"entry": "rotate", "params": {"angle": [-15, 15]}, "p": 0.7},
//	  {"entry": "random_resized_crop", "params": {"scale": [0.5, 1]}, "p": 1},
//	  {"entry": "brightness_contrast", "params": {"brightness": 0.2, "contrast": [-0.2, 0.2]}, "p": 0.5},
//	  {"entry": "flip_horizontal", "p": 0.5}
//	]
//
// Check validates it without rendering (ADR-079: a value or range end outside the
// entry's declared range is invalid_input naming the step and the parameter, never
// clamped). It reads the parameters' ranges the pack's check made and evaluates no
// CUE: the call's own CUE check happened once at the server's boundary, and a range
// found outside is said in the words of the entry's values check (Facts.Explain).
// Steps may belong to groups (Step.Group: albumentations' OneOf, SomeOf, OneOrOther
// and Sequential), and groups to groups (Group.Parent), at most AlbuMap.MaxGroupDepth
// (the contract's #MaxGroupDepth) deep; group.go says how each chooses, as
// albumentations 1.3.1 does.
// Run then, per variant, applies the steps in the pipeline's order (not the
// engine's stage order: an augmentation is a sequence, as in albumentations; a
// some_of group applies its members in the order it drew them, one drawn twice
// twice): a step fires with probability p (or when its group picked it), draws its values (uniformly in each range; an integer
// parameter takes each whole number of its range with equal chance), resolves its
// entry into engine edits with the function the editing path uses (resolve.Edits:
// the entry's parameter defaults, then the catalog's argument defaults from
// Facts.Defaults). What the package needs of the contract (operation defaults, the
// albumentations readings) it gets as plain data (Facts), made once from CUE; it
// does not import the contract. The fired steps render in that order in one
// engine.RenderSteps, each step's edits as engine.Render renders them; the engine
// shares buffers across the steps and holds a step of flips for the warp after it,
// with the pixels of rendering step by step. A step that cannot be
// applied (an entry no pack defines: not_found; a render that fails, such as a scale
// over the engine's pixel limit: limit_exceeded) is reported in Variant.Skipped with
// its code and the variant goes on without it.
//
// # Seeds
//
// Every draw comes from the engine's counter-based hash (engine.Hash) keyed by
// (seed, variant n, step index t): whether step t fires, each of its parameter
// values, and the seed its render gets (which keys the engine's own random
// operations: noise, cutout, random crops, elastic fields). A group's choices are
// keyed by (seed, n, its first step's index, 3 + its depth), and a step a some_of
// runs a second time draws from its key hashed with the repeat. Nothing else enters, so
// the same seed, image and pipeline give the same bytes on any number of cores;
// variant n is the same whether 4 or 64 variants were asked for; and a step's draws
// do not change when a step is added before or after it. Run with the seed a result
// reports and its config.json reproduces every byte.
//
// # Annotations
//
// Annotations carry boxes (formats pascal_voc, coco, yolo, albumentations, each box
// with an optional label), keypoints (with optional labels) and a label mask (a grey
// or paletted PNG: DecodeMask, Mask.PNG). Positions are continuous pixel
// coordinates: pixel (i, j) covers [i, i+1) x [j, j+1). Through each geometry edit a
// step renders, they move along the engine's geometry maps (engine.GeometryMaps),
// which are computed from the same arguments and the same random draws as the
// pixels:
//
//   - a box through a linear map (flips, quarter turns, transposes, crops of every
//     kind, pads, scales, rotations, affine maps) becomes the bounding box of its four
//     moved corners, clipped to the frame; its visible fraction is multiplied by the
//     clipped area over the unclipped one, and a box whose fraction falls below
//     MinVisibility, or that leaves the frame, is dropped and reported in
//     Variant.Dropped;
//   - a box through a curved or piecewise map (perspective, elastic, grid
//     distortion, lens distortion, grid shuffle) becomes the bounding box of the
//     output pixels whose centre shows a point of the box, the rule the pixels
//     follow; it is dropped only when no pixel shows it;
//   - a keypoint moves by the forward map, exactly for the linear maps (a quarter
//     turn moves a pixel centre to the centre of the pixel it lands on), numerically
//     solved for elastic and lens distortion; one that leaves the frame is dropped;
//   - the mask takes, at each output pixel, the label of the source pixel nearest to
//     the position the pixels sample (engine.GeoMap.SourcePixel), the border filled
//     as the pixels' is (reflect and edge repeat labels, a constant border is label
//     0): labels are never interpolated.
//
// Steps that are not geometric leave annotations where they are.
package augment
