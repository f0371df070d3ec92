package engine

import "math"

// The sRGB transfer function. Decoding goes through lookup tables built once; encoding
// uses a fine table with linear interpolation, accurate to well under one 16-bit level.

var (
	lin8 [256]float32
	// lin8Planes is lin8 as four planes of 256 bytes, the least significant
	// byte of each value's bits first: what ycbcrLinAVX512 looks up.
	lin8Planes [4 * 256]uint8
	lin16      [65536]float32
	// enc holds LinearToSRGB at encSteps+1 evenly spaced points of [0, 1].
	enc [encSteps + 1]float32
)

const encSteps = 1 << 14

func init() {
	for i := range lin8 {
		lin8[i] = float32(srgbToLinear(float64(i) / 255))
		for b := range 4 {
			lin8Planes[256*b+i] = uint8(math.Float32bits(lin8[i]) >> (8 * b))
		}
	}
	for i := range lin16 {
		lin16[i] = float32(srgbToLinear(float64(i) / 65535))
	}
	for i := range enc {
		enc[i] = float32(linearToSRGB(float64(i) / encSteps))
	}
}

func srgbToLinear(v float64) float64 {
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

func linearToSRGB(v float64) float64 {
	if v <= 0.0031308 {
		return v * 12.92
	}
	return 1.055*math.Pow(v, 1/2.4) - 0.055
}

// Linear8 converts an 8-bit sRGB value to linear light.
func Linear8(v uint8) float32 { return lin8[v] }

// Linear16 converts a 16-bit sRGB value to linear light.
func Linear16(v uint16) float32 { return lin16[v] }

// SRGBToLinear converts a display value in [0, 1] to linear light.
func SRGBToLinear(v float32) float32 { return float32(srgbToLinear(float64(v))) }

// LinearToSRGB converts linear light to a display value, clamped to [0, 1].
func LinearToSRGB(v float32) float32 {
	if !(v > 0) { // also catches NaN
		return 0
	}
	if v >= 1 {
		return 1
	}
	x := v * encSteps
	i := int(x)
	f := x - float32(i)
	return enc[i] + (enc[i+1]-enc[i])*f
}
