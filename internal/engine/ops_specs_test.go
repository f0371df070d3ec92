package engine

// opSpecs mirrors the arguments of contracts/operations.cue for the tests of this
// package: each argument's kind, range and neutral default. The CUE catalog is
// authoritative; a test in internal/contract checks that the engine's operation names
// and stages match it, and TestOpsSpecsCoverCatalog checks that this table names
// exactly Operations().

type opArgSpec struct {
	name     string
	kind     string // number, integer, boolean, enum, points
	min, max float64
	def      any
	values   []string // enum values
}

var opSpecs = map[string][]opArgSpec{
	"black_and_white": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "red", kind: "number", min: -2, max: 2, def: float64(0.2126)},
		{name: "green", kind: "number", min: -2, max: 2, def: float64(0.7152)},
		{name: "blue", kind: "number", min: -2, max: 2, def: float64(0.0722)},
	},
	"blur": {
		{name: "kind", kind: "enum", def: "gaussian", values: []string{"gaussian", "box", "motion"}},
		{name: "radius", kind: "number", min: 0, max: 0.1, def: float64(0)},
		{name: "angle", kind: "number", min: -180, max: 180, def: float64(0)},
	},
	"clahe": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "clip_limit", kind: "number", min: 1, max: 16, def: float64(2)},
		{name: "tiles", kind: "integer", min: 2, max: 32, def: float64(8)},
	},
	"clarity": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "radius", kind: "number", min: 0.002, max: 0.1, def: float64(0.02)},
	},
	"color_balance": {
		{name: "shadows_red", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "shadows_green", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "shadows_blue", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "midtones_red", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "midtones_green", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "midtones_blue", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "highlights_red", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "highlights_green", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "highlights_blue", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"contrast": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"crop": {
		{name: "left", kind: "number", min: 0, max: 0.45, def: float64(0)},
		{name: "right", kind: "number", min: 0, max: 0.45, def: float64(0)},
		{name: "top", kind: "number", min: 0, max: 0.45, def: float64(0)},
		{name: "bottom", kind: "number", min: 0, max: 0.45, def: float64(0)},
	},
	"curve": {
		{name: "points", kind: "points", min: 2, max: 16, def: [][2]float64{{0, 0}, {1, 1}}},
		{name: "channel", kind: "enum", def: "rgb", values: []string{"rgb", "red", "green", "blue"}},
	},
	"safe_rotate": {
		{name: "angle", kind: "number", min: -180, max: 180, def: float64(0)},
		{name: "mode", kind: "enum", def: "reflect", values: []string{"constant", "reflect", "edge"}},
	},
	"sun_flare": {
		{name: "radius", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "circles", kind: "integer", min: 0, max: 20, def: float64(0)},
		{name: "angle", kind: "number", min: 0, max: 360, def: float64(0)},
		{name: "roi_left", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "roi_top", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "roi_right", kind: "number", min: 0, max: 1, def: float64(1)},
		{name: "roi_bottom", kind: "number", min: 0, max: 1, def: float64(0.5)},
		{name: "red", kind: "number", min: 0, max: 1, def: float64(1)},
		{name: "green", kind: "number", min: 0, max: 1, def: float64(1)},
		{name: "blue", kind: "number", min: 0, max: 1, def: float64(1)},
	},
	"spatter": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "mode", kind: "enum", def: "rain", values: []string{"rain", "mud"}},
		{name: "coverage", kind: "number", min: 0.02, max: 0.8, def: float64(0.25)},
		{name: "size", kind: "number", min: 0.001, max: 0.05, def: float64(0.004)},
	},
	"gravel": {
		{name: "patches", kind: "integer", min: 0, max: 10, def: float64(0)},
		{name: "roi_left", kind: "number", min: 0, max: 1, def: float64(0.1)},
		{name: "roi_top", kind: "number", min: 0, max: 1, def: float64(0.4)},
		{name: "roi_right", kind: "number", min: 0, max: 1, def: float64(0.9)},
		{name: "roi_bottom", kind: "number", min: 0, max: 1, def: float64(0.9)},
	},
	"cutout": {
		{name: "holes", kind: "integer", min: 0, max: 32, def: float64(0)},
		{name: "size", kind: "number", min: 0.002, max: 0.5, def: float64(0.1)},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"dehaze": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"denoise": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "radius", kind: "number", min: 0.0002, max: 0.01, def: float64(0.002)},
	},
	"exposure": {
		{name: "ev", kind: "number", min: -5, max: 5, def: float64(0)},
	},
	"flip": {
		{name: "horizontal", kind: "boolean", def: false},
		{name: "vertical", kind: "boolean", def: false},
	},
	"grain": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "size", kind: "number", min: 0.0002, max: 0.01, def: float64(0.001)},
	},
	"hsl": {
		{name: "band", kind: "enum", def: "red", values: []string{"red", "orange", "yellow", "green", "aqua", "blue", "purple", "magenta"}},
		{name: "hue", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "saturation", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "lightness", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"hue_shift": {
		{name: "degrees", kind: "number", min: -180, max: 180, def: float64(0)},
	},
	"noise": {
		{name: "sigma", kind: "number", min: 0, max: 0.5, def: float64(0)},
		{name: "monochrome", kind: "boolean", def: false},
	},
	"random_crop": {
		{name: "scale", kind: "number", min: 0.05, max: 1, def: float64(1)},
		{name: "keep_size", kind: "boolean", def: false},
		{name: "width", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "height", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "out_width", kind: "number", min: 0.01, max: 4, def: float64(1)},
		{name: "out_height", kind: "number", min: 0.01, max: 4, def: float64(1)},
		{name: "aspect", kind: "number", min: 0, max: 10, def: float64(0)},
	},
	"rotate": {
		{name: "angle", kind: "number", min: -180, max: 180, def: float64(0)},
		{name: "auto_crop", kind: "boolean", def: false},
	},
	"saturation": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"sharpen": {
		{name: "amount", kind: "number", min: 0, max: 3, def: float64(0)},
		{name: "radius", kind: "number", min: 0.0002, max: 0.01, def: float64(0.001)},
		{name: "threshold", kind: "number", min: 0, max: 0.5, def: float64(0)},
	},
	"spot": {
		{name: "kind", kind: "enum", def: "heal", values: []string{"heal", "clone"}},
		{name: "dx", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "dy", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"split_tone": {
		{name: "highlights_hue", kind: "number", min: 0, max: 360, def: float64(0)},
		{name: "highlights_saturation", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "shadows_hue", kind: "number", min: 0, max: 360, def: float64(0)},
		{name: "shadows_saturation", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "balance", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"tone": {
		{name: "highlights", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "shadows", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "whites", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "blacks", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"vibrance": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"vignette": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
		{name: "midpoint", kind: "number", min: 0, max: 1, def: float64(0.5)},
		{name: "feather", kind: "number", min: 0, max: 1, def: float64(0.5)},
	},
	"white_balance": {
		{name: "temperature", kind: "number", min: -4000, max: 4000, def: float64(0)},
		{name: "tint", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"rotate90": {
		{name: "turns", kind: "integer", min: 0, max: 3, def: float64(0)},
	},
	"transpose": {
		{name: "diagonal", kind: "enum", def: "none", values: []string{"none", "main", "anti"}},
	},
	"center_crop": {
		{name: "width", kind: "number", min: 0.05, max: 1, def: float64(1)},
		{name: "height", kind: "number", min: 0.05, max: 1, def: float64(1)},
	},
	"pad": {
		{name: "width", kind: "number", min: 0, max: 2, def: float64(0)},
		{name: "height", kind: "number", min: 0, max: 2, def: float64(0)},
		{name: "mode", kind: "enum", def: "constant", values: []string{"constant", "reflect", "edge"}},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"affine": {
		{name: "scale", kind: "number", min: 0.25, max: 4, def: float64(1)},
		{name: "angle", kind: "number", min: -180, max: 180, def: float64(0)},
		{name: "shear_x", kind: "number", min: -45, max: 45, def: float64(0)},
		{name: "shear_y", kind: "number", min: -45, max: 45, def: float64(0)},
		{name: "translate_x", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
		{name: "translate_y", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
		{name: "mode", kind: "enum", def: "constant", values: []string{"constant", "reflect", "edge"}},
	},
	"perspective": {
		{name: "scale", kind: "number", min: 0, max: 0.3, def: float64(0)},
	},
	"elastic": {
		{name: "alpha", kind: "number", min: 0, max: 0.2, def: float64(0)},
		{name: "sigma", kind: "number", min: 0.01, max: 0.25, def: float64(0.05)},
	},
	"grid_distortion": {
		{name: "steps", kind: "integer", min: 2, max: 16, def: float64(5)},
		{name: "distort", kind: "number", min: 0, max: 0.6, def: float64(0)},
	},
	"gamma": {
		{name: "gamma", kind: "number", min: 0.25, max: 4, def: float64(1)},
	},
	"posterize": {
		{name: "bits", kind: "integer", min: 1, max: 8, def: float64(8)},
	},
	"equalize": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "by_channels", kind: "boolean", def: true},
	},
	"rgb_shift": {
		{name: "red", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
		{name: "green", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
		{name: "blue", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
	},
	"channel_shuffle": {
		{name: "order", kind: "enum", def: "rgb", values: []string{"rgb", "rbg", "grb", "gbr", "brg", "bgr", "random"}},
	},
	"sepia": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"emboss": {
		{name: "alpha", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "strength", kind: "number", min: 0, max: 2, def: float64(0.5)},
		{name: "size", kind: "number", min: 0.0005, max: 0.01, def: float64(0.001)},
	},
	"downscale": {
		{name: "scale", kind: "number", min: 0.05, max: 1, def: float64(1)},
		{name: "interpolation", kind: "enum", def: "nearest", values: []string{"nearest", "linear", "lanczos"}},
	},
	"multiplicative_noise": {
		{name: "spread", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "center", kind: "number", min: 0, max: 2, def: float64(1)},
		{name: "per_channel", kind: "integer", min: 0, max: 1, def: 0},
		{name: "elementwise", kind: "integer", min: 0, max: 1, def: 0},
	},
	"iso_noise": {
		{name: "intensity", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "color_shift", kind: "number", min: 0, max: 0.2, def: float64(0.03)},
	},
	"fog": {
		{name: "density", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"shadow": {
		{name: "count", kind: "integer", min: 0, max: 5, def: float64(0)},
		{name: "intensity", kind: "number", min: 0, max: 1, def: float64(0.5)},
	},
	"rain": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "length", kind: "number", min: 0.01, max: 0.1, def: float64(0.03)},
		{name: "slant", kind: "number", min: -45, max: 45, def: float64(0)},
		{name: "brightness", kind: "number", min: 0.3, max: 1, def: float64(0.7)},
	},
	"jpeg_compression": {
		{name: "quality", kind: "integer", min: 1, max: 100, def: float64(100)},
	},
	"lens_distortion": {
		{name: "k", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
	},
	"grid_shuffle": {
		{name: "cells", kind: "integer", min: 1, max: 8, def: float64(1)},
	},
	"contrast_mean": {
		{name: "amount", kind: "number", min: -1, max: 1, def: float64(0)},
	},
	"auto_contrast": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "cutoff", kind: "number", min: 0, max: 0.2, def: float64(0)},
	},
	"channel_dropout": {
		{name: "channel", kind: "enum", def: "none", values: []string{"none", "red", "green", "blue", "random"}},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"morphology": {
		{name: "operation", kind: "enum", def: "none", values: []string{"none", "erode", "dilate"}},
		{name: "size", kind: "number", min: 0.0005, max: 0.02, def: float64(0.002)},
	},
	"chromatic_aberration": {
		{name: "amount", kind: "number", min: -0.02, max: 0.02, def: float64(0)},
	},
	"snow": {
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "brightness", kind: "number", min: 1, max: 4, def: float64(2.5)},
	},
	"shot_noise": {
		{name: "scale", kind: "number", min: 0, max: 0.1, def: float64(0)},
	},
	"salt_and_pepper": {
		{name: "amount", kind: "number", min: 0, max: 0.5, def: float64(0)},
		{name: "salt", kind: "number", min: 0, max: 1, def: float64(0.5)},
	},
	"pixel_dropout": {
		{name: "probability", kind: "number", min: 0, max: 0.5, def: float64(0)},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "per_channel", kind: "boolean", def: false},
	},
	"scale": {
		{name: "factor", kind: "number", min: 0.01, max: 4, def: float64(1)},
		{name: "factor_y", kind: "number", min: 0, max: 4, def: float64(0)},
		{name: "round", kind: "boolean", def: false},
	},
	"random_tone_curve": {
		{name: "scale", kind: "number", min: 0, max: 0.5, def: float64(0)},
	},
	"fancy_pca": {
		{name: "alpha", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"zoom_blur": {
		{name: "amount", kind: "number", min: 0, max: 0.3, def: float64(0)},
	},
	"median_blur": {
		{name: "radius", kind: "number", min: 0, max: 0.01, def: float64(0)},
	},
	"defocus": {
		{name: "radius", kind: "number", min: 0, max: 0.02, def: float64(0)},
		{name: "alias_blur", kind: "number", min: 0, max: 0.002, def: float64(0.0003)},
	},
	"sharpen_kernel": {
		{name: "alpha", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "lightness", kind: "number", min: 0, max: 4, def: float64(1)},
		{name: "size", kind: "number", min: 0.0005, max: 0.01, def: float64(0.001)},
	},
	"solarize": {
		{name: "threshold", kind: "number", min: 0, max: 1, def: float64(0.5)},
		{name: "amount", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"grid_dropout": {
		{name: "ratio", kind: "number", min: 0, max: 0.9, def: float64(0)},
		{name: "cells", kind: "integer", min: 2, max: 32, def: float64(10)},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"plasma": {
		{name: "brightness", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
		{name: "contrast", kind: "number", min: -0.5, max: 0.5, def: float64(0)},
		{name: "shadow", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"xy_masking": {
		{name: "vertical", kind: "integer", min: 0, max: 8, def: float64(0)},
		{name: "horizontal", kind: "integer", min: 0, max: 8, def: float64(0)},
		{name: "width", kind: "number", min: 0.01, max: 0.3, def: float64(0.05)},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
	},
	"border_crop": {
		{name: "limit", kind: "number", min: 0, max: 0.45, def: float64(0)},
	},
	"glass_blur": {
		{name: "sigma", kind: "number", min: 0, max: 0.01, def: float64(0.001)},
		{name: "delta", kind: "number", min: 0, max: 0.02, def: float64(0)},
	},
	"crop_and_pad": {
		{name: "percent", kind: "number", min: -0.3, max: 0.3, def: float64(0)},
		{name: "mode", kind: "enum", def: "constant", values: []string{"constant", "reflect", "edge"}},
		{name: "fill", kind: "number", min: 0, max: 1, def: float64(0)},
		{name: "keep_size", kind: "boolean", def: true},
	},
}
