package engine

import (
	"hash/fnv"
	"math"
)

// Random numbers come from a counter-based generator: every value is a pure function of
// (render seed, operation, occurrence, pixel, channel), so the same seed gives the same
// bytes however the rows are split across goroutines, and nothing touches math/rand's
// global state. The generator is SplitMix64: the value for counter i of a stream with
// key k is mix64(k + i*golden), which passes BigCrush and costs one multiply-xorshift
// chain per value.

const golden = 0x9e3779b97f4a7c15

// mix64 is SplitMix64's output function (Steele, Lea and Flood, 2014).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// editKey is the stream key of one edit: the render seed, the operation's name and the
// how-many-th edit of that operation it is in render order. Keying on the occurrence
// rather than on the edit's position means adding an unrelated edit (an exposure, say)
// does not reshuffle the grain, while two grain entries still draw different noise.
func editKey(seed uint64, op string, occurrence int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(op))
	return mix64(mix64(seed^golden) ^ h.Sum64() ^ mix64(uint64(occurrence)+1))
}

// rnd returns the 64 random bits of counter (x, y, c) in stream key. x and y are pixel
// coordinates (or any two small indices) and c a channel or sub-draw below 4.
func rnd(key uint64, x, y, c int) uint64 {
	i := (uint64(uint32(y))<<32 | uint64(uint32(x))) << 2
	return mix64(key + (i|uint64(c&3))*golden)
}

// uniform maps 64 random bits to [0, 1).
func uniform(bits uint64) float64 {
	return float64(bits>>11) * (1.0 / (1 << 53))
}

// normalTab is the inverse of the standard normal CDF at the centres of normalSteps
// equal slices of probability, scaled so that the interpolated distribution normal16
// draws from has a variance of exactly 1.
var normalTab = func() *[normalSteps + 1]float32 {
	var t [normalSteps + 1]float64
	for i := range t {
		t[i] = math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/(normalSteps+1)-1)
	}
	// The variance of a value drawn uniformly from the piecewise linear curve through
	// the table: over each step, the mean of the square of a linear segment.
	var v float64
	for i := range normalSteps {
		a, b := t[i], t[i+1]
		v += (a*a + a*b + b*b) / 3
	}
	k := 1 / math.Sqrt(v/normalSteps)
	var out [normalSteps + 1]float32
	for i, x := range t {
		out[i] = float32(x * k)
	}
	return &out
}()

const normalSteps = 4096

// normal16 maps the low 16 bits of u to a standard normal value through the tabulated
// inverse CDF (12 bits pick the step, 4 interpolate), so one 64-bit hash gives four
// normal values for the cost of four table reads; the tails stop at ±3.7 sigma, which
// no one sees in grain or augmentation noise.
func normal16(u uint64) float32 {
	i := u >> 4 & (normalSteps - 1)
	a := normalTab[i]
	return a + (normalTab[i+1]-a)*(float32(u&15)*(1.0/16))
}

// Hash returns 64 random bits that are a pure function of seed and the counter
// (i, j, k), k below 4: the engine's generator for callers outside it (the
// augmentation sampler), whose draws then, like the pixels', depend on nothing but
// their keys, not on goroutines or on how many other draws were made.
func Hash(seed uint64, i, j, k int) uint64 { return rnd(mix64(seed^golden), i, j, k) }

// Uniform maps 64 random bits (a Hash) to [0, 1).
func Uniform(bits uint64) float64 { return uniform(bits) }
