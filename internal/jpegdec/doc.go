// Package jpegdec is a JPEG decoder that is faster than image/jpeg and can
// decode at 1/2, 1/4 or 1/8 of the size, for previews and exports of large
// photos.
//
// It is forked from Go's image/jpeg decoder at go1.26 (reader.go, huffman.go,
// scan.go and the inverse DCT of dct.go), under Go's BSD licence: see LICENSE.
// Forked files keep Go's copyright header.
//
// # What is the same
//
// At scale 1, Decode returns what image/jpeg.Decode returns: the same image
// type (*image.YCbCr, *image.Gray, *image.CMYK, or *image.RGBA for Adobe
// RGB-transform files), bounds and samples, and for invalid input the same
// error (as this package's FormatError and UnsupportedError types). Marker
// parsing, the inverse DCT and the handling of restart markers, corrupt data
// and malformed Huffman tables are image/jpeg's code. DecodeConfig is
// image/jpeg.DecodeConfig. Like image/jpeg, Decode does not limit the image
// size: callers should check DecodeConfig first.
//
// # What differs, and why
//
// Entropy decoding, which is most of image/jpeg's time: the bit buffer holds
// 64 bits and is refilled 7 or 8 bytes at a time when they contain no 0xff
// byte; the Huffman look-up table resolves codes of up to 10 bits at once
// (image/jpeg: 8), and its entries for AC and DC codes include the already
// extended coefficient value when the code and the value's bits fit in 10
// bits, as in libjpeg-turbo and stb_image. The bit reader reads ahead, so
// to keep image/jpeg's errors it pads the data with zeros at the end of an
// entropy-coded segment, remembers the error image/jpeg would have reported,
// and reports it if a padding bit was used; after a segment it gives back the
// bytes it read ahead. Near the end of a segment, blocks are decoded with
// image/jpeg's original logic.
//
// Pipelining: in sequential (baseline and extended) scans, the calling
// goroutine entropy-decodes batches of blocks, storing only their non-zero
// coefficients, while GOMAXPROCS worker goroutines dequantize, inverse-DCT
// and store the previous batches (the entropy decoder leaves its processor to
// them while it waits for a free batch). A small ring of batches bounds the
// memory. The inverse DCT skips rows of zeros, and blocks whose only non-zero
// coefficient is the DC coefficient skip it altogether (the results are the
// same). Progressive images keep all coefficients, as image/jpeg does, and
// are reconstructed by GOMAXPROCS goroutines at the end. Small scans, and
// every scan with Options.Serial (a caller already keeping every core busy),
// are decoded without goroutines. A panic in a worker is recovered and returned
// as an error, and no goroutine outlives Decode.
//
// SIMD: on amd64 CPUs with AVX2, full blocks at scale 1 are transformed,
// level-shifted, clipped and stored by assembly (idct_amd64.s) that does the
// Go inverse DCT's int32 arithmetic, wraparound included, eight rows or
// columns at a time, so the pixels are the same on every machine; tests
// compare the two on random and extreme blocks and on every test file.
// Other architectures and CPUs, and the purego build tag, use the Go code.
//
// Scaling: with Options.Scale 2 or 4, every sample of every plane (Y, Cb, Cr,
// gray, and CMYK's planes before they are interleaved) is the rounded average
// of the corresponding 2×2 or 4×4 samples of the scale-1 decode (clipped to
// the plane at its right and bottom edges; an average rounds halves up).
// With Scale 8, a block whose samples cannot be clipped to [0, 255] gets the
// value of its DC coefficient without an inverse DCT; that is within ±2 of
// the average. Chroma planes are scaled on their own block grid, so a scaled
// image keeps the subsampling ratio, and its planes are sized exactly as
// image.NewYCbCr sizes them. Progressive images can be decoded at every
// scale too (decoding all coefficients, but storing fewer samples). An empty
// image has the zero rectangle as its bounds at every scale, as image/jpeg's
// has.
//
// Known differences: for a reader that fails with an error other than io.EOF
// in the middle of entropy-coded data, image/jpeg may report that error a few
// bytes earlier than this package does (it never reads ahead). Decode does
// not register itself with the image package; image/jpeg does.
package jpegdec
