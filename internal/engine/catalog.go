package engine

import (
	"slices"
	"sort"
)

// stages is the catalog's fixed render order (contracts/operations.cue, stages).
var stages = []string{"geometry", "light", "tone", "color", "detail", "effects"}

// opFunc applies one operation to src with validated, complete arguments. It returns
// src itself when the arguments are neutral (so nothing is copied or rounded), and
// otherwise a new image, which for every stage but geometry has src's dimensions.
// It never modifies src.
type opFunc func(rc *runCtx, src *Image, a Args) (*Image, error)

type opEntry struct {
	stage string
	run   opFunc
	// band says the operation renders any band of whole rows exactly as it renders
	// those rows of the whole image: it works pixel by pixel, and whatever it takes
	// from the pixel's position or the image's size it takes from runCtx.frame. An
	// export whose edits are all band operations streams: it never holds the
	// full-size float image (see Export).
	band bool
}

// catalog maps every operation of contracts/operations.cue to its stage and its
// implementation. Argument names, ranges and defaults live only in the CUE catalog; a
// test in another package checks that these names and stages match it. Geometry
// operations are the ones the catalog marks maskable: false.
var catalog = map[string]opEntry{
	"crop":        {"geometry", opCrop, false},
	"random_crop": {"geometry", opRandomCrop, false},
	"rotate":      {"geometry", opRotate, false},
	"flip":        {"geometry", opFlip, false},

	"rotate90":        {"geometry", opRotate90, false},
	"transpose":       {"geometry", opTranspose, false},
	"center_crop":     {"geometry", opCenterCrop, false},
	"pad":             {"geometry", opPad, false},
	"affine":          {"geometry", opAffine, false},
	"perspective":     {"geometry", opPerspective, false},
	"elastic":         {"geometry", opElastic, false},
	"grid_distortion": {"geometry", opGridDistortion, false},
	"lens_distortion": {"geometry", opLensDistortion, false},
	"grid_shuffle":    {"geometry", opGridShuffle, false},
	"scale":           {"geometry", opScale, false},
	"border_crop":     {"geometry", opBorderCrop, false},
	"crop_and_pad":    {"geometry", opCropAndPad, false},

	"exposure":      {"light", opExposure, true},
	"white_balance": {"light", opWhiteBalance, true},

	"tone":              {"tone", opTone, true},
	"contrast":          {"tone", opContrast, true},
	"curve":             {"tone", opCurve, true},
	"clahe":             {"tone", opCLAHE, false},
	"dehaze":            {"tone", opDehaze, false},
	"gamma":             {"tone", opGamma, true},
	"posterize":         {"tone", opPosterize, true},
	"equalize":          {"tone", opEqualize, false},
	"auto_contrast":     {"tone", opAutoContrast, false},
	"contrast_mean":     {"tone", opContrastMean, false},
	"random_tone_curve": {"tone", opRandomToneCurve, true},

	"saturation":      {"color", opSaturation, true},
	"vibrance":        {"color", opVibrance, true},
	"hue_shift":       {"color", opHueShift, true},
	"hsl":             {"color", opHSL, true},
	"color_balance":   {"color", opColorBalance, true},
	"black_and_white": {"color", opBlackAndWhite, true},
	"split_tone":      {"color", opSplitTone, true},
	"rgb_shift":       {"color", opRGBShift, true},
	"channel_shuffle": {"color", opChannelShuffle, true},
	"sepia":           {"color", opSepia, true},
	"channel_dropout": {"color", opChannelDropout, true},
	"fancy_pca":       {"color", opFancyPCA, false},

	"clarity":              {"detail", opClarity, false},
	"sharpen":              {"detail", opSharpen, false},
	"denoise":              {"detail", opDenoise, false},
	"blur":                 {"detail", opBlur, false},
	"spot":                 {"detail", opSpot, false},
	"emboss":               {"detail", opEmboss, false},
	"downscale":            {"detail", opDownscale, false},
	"morphology":           {"detail", opMorphology, false},
	"chromatic_aberration": {"detail", opChromaticAberration, false},
	"zoom_blur":            {"detail", opZoomBlur, false},
	"median_blur":          {"detail", opMedianBlur, false},
	"defocus":              {"detail", opDefocus, false},
	"sharpen_kernel":       {"detail", opSharpenKernel, false},
	"solarize":             {"tone", opSolarize, true},
	"glass_blur":           {"detail", opGlassBlur, false},

	"vignette":    {"effects", opVignette, true},
	"grain":       {"effects", opGrain, false},
	"noise":       {"effects", opNoise, true},
	"safe_rotate": {"geometry", opSafeRotate, false},
	"sun_flare":   {"effects", opSunFlare, true},
	"spatter":     {"effects", opSpatter, true},
	"gravel":      {"effects", opGravel, false},
	"cutout":      {"effects", opCutout, false},

	"multiplicative_noise": {"effects", opMultiplicativeNoise, true},
	"iso_noise":            {"effects", opISONoise, false},
	"fog":                  {"effects", opFog, true},
	"shadow":               {"effects", opShadow, true},
	"rain":                 {"effects", opRain, false},
	"snow":                 {"effects", opSnow, true},
	"shot_noise":           {"effects", opShotNoise, true},
	"salt_and_pepper":      {"effects", opSaltAndPepper, true},
	"pixel_dropout":        {"effects", opPixelDropout, true},
	"grid_dropout":         {"effects", opGridDropout, true},
	"plasma":               {"effects", opPlasma, true},
	"xy_masking":           {"effects", opXYMasking, true},
	"jpeg_compression":     {"effects", opJPEGCompression, false},
}

// localOps are the operations that, given runCtx.region, render only that rectangle
// of the image: a masked edit of one of them costs in proportion to what its mask
// reaches, not to the frame.
var localOps = map[string]bool{"spot": true}

// OpStage reports the stage of the named operation, and false for an unknown name.
func OpStage(op string) (stage string, ok bool) {
	e, ok := catalog[op]
	return e.stage, ok
}

// Operations returns the names of every operation the engine implements, sorted.
func Operations() []string {
	names := make([]string, 0, len(catalog))
	for n := range catalog {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func stageIndex(stage string) int { return slices.Index(stages, stage) }
