// Package jpegenc is a faster baseline JPEG encoder for 4:2:0 *image.YCbCr
// images whose output is byte-for-byte that of the standard library's
// image/jpeg.Encode for the same image and quality.
//
// It is forked from image/jpeg at go1.26 (writer.go and the forward DCT of
// dct.go), under Go's BSD license, in the LICENSE file of this directory.
// The headers, quantization and Huffman tables, quality scaling, FDCT
// arithmetic, MCU order and bit-stream layout are unchanged. What differs:
//
//   - Input is only *image.YCbCr with 4:2:0 subsampling. Other images, empty
//     images, sides over 65535, a quality outside [1, 100] (image/jpeg
//     clamps it) and planes too short for the rectangle (image/jpeg panics)
//     are errors.
//   - Samples are read straight from the planes. image/jpeg converts every
//     16x16 MCU pixel by pixel (YOffset/COffset, coordinates clamped to the
//     last row and column) and then averages each 2x2 group of per-pixel
//     chroma values; for an MCU inside the image whose pixels pair up on the
//     stored chroma samples that average is the stored sample, so those MCUs
//     are DCT'd in place. The others (right and bottom edges, or rectangles
//     whose origin is odd or negative) are rebuilt exactly as image/jpeg does.
//   - The FDCT column pass reads bytes from the plane, and the row pass
//     quantizes its outputs directly. On amd64 CPUs with AVX2 both passes
//     and the quantizer run in fdct_amd64.s, eight lanes at a time, with the
//     same int32 arithmetic, so the coefficients are the same on every
//     machine; the Go code serves other CPUs (and the purego build tag). Quantization multiplies by a
//     precomputed reciprocal instead of dividing; the result equals
//     image/jpeg's div (rounding half away from zero) for every input of
//     magnitude up to 2^16, eight times what the FDCT can produce (see
//     quantTable; the tests check every such input for every divisor).
//   - Zero AC coefficients are skipped with a zig-zag bit mask of the
//     non-zero ones. A block's Huffman codes, with their value bits, are
//     collected first and then emitted through a 64-bit accumulator that
//     writes 32 bits at a time; the block's bytes are then checked for 0xFF
//     eight at a time and stuffed only when one is found.
//   - Output goes to an internal 64 KiB buffer that is written to w with
//     w.Write; image/jpeg writes through a bufio.Writer (or w's own
//     WriteByte and Flush when it has them). The written bytes are the same.
//
// Encode is single-threaded and allocates nothing per block; encoders and
// their buffers are pooled.
package jpegenc
