// Package engine turns a source image plus a list of edits into pixels: decode, the
// operation pipeline in its fixed stage order, masks, resize and encode. It knows
// nothing of MCP or CUE: its callers pass operation arguments that the contract layer
// has already validated and completed with defaults, and it returns coded errors
// (darkroom.Error) for what can still go wrong with pixels.
//
// # Where the time goes, and how it is kept short
//
// Pixels are linear-light float32 RGB (Image) between decode and encode. The three
// paths a photo takes are each shaped by what they must not pay for:
//
//   - Preview after an edit (Previewer.Preview): the source was decoded once into a
//     proxy (2048 pixels on the long edge, kept in a byte-bounded LRU), and the proxy
//     after geometry and resizing to the preview size is cached too, so an edit
//     costs only its operations at preview size and the JPEG. Renders hand the
//     buffers they drop to the next render instead of allocating new ones.
//   - First preview (Previewer.Proxy): a JPEG is decoded by jpegdec in the DCT domain
//     at 1/2, 1/4 or 1/8 of its size (as libjpeg and libvips shrink on load), other
//     formats are box-averaged row by row while converting, and a Lanczos pass makes
//     the proxy; no full-size float image is ever made. A PNG (non-interlaced, 8 or
//     16 bits, no tRNS) is not even decoded whole: its rows are inflated and box-
//     averaged as they come (pngrows.go), so a file that declares 240 megapixels
//     costs tens of megabytes to preview instead of one or two gigabytes.
//   - Camera raw (decode_raw.go, decode_camera.go): a DNG is developed by
//     internal/raw into linear floats that are not clipped at 1 (scene-referred,
//     decoded.white); its proxy comes from the 2x2-binned mosaic, its export from
//     the RCD demosaic, both handed on as rows like any decoded file. Other camera
//     formats are developed by LibRaw's dcraw_emu, a subprocess bounded in time
//     and memory, whose 16-bit TIFF the TIFF decoder then reads.
//
// Every decode first takes from a process-wide decode budget (budget.go) what its
// decoder and float images will hold, estimated from the header: one that alone
// exceeds it is refused before anything is allocated, others wait their turn, and a
// large one hands its memory back to the system when it ends. A caller that holds
// pixels beyond one decode (an augmentation's source and renders, a dataset job)
// reserves its whole working set from the same budget first (Reserve, from
// ReadHeader and PeakFrame) and decodes inside it (DecodeOptions.Reserved), so the
// budget bounds the pixels of every call in flight. Label masks are decoded the same
// way (DecodeLabelMask: the size and colour model checked from the header first);
// nothing else in the module calls an image decoder on untrusted bytes.
//   - Export (Export): strips of rows are rendered from the decoder's 8-bit planes
//     and JPEG-encoded on every core, a few at a time, and joined with restart
//     markers; the decoder's image is the only full-size one. When every edit works
//     pixel by pixel (operations whose catalog entry is marked band, and masks that
//     can be cut into rows) each strip is its own rows of the source. Otherwise the
//     edits are planned in bands (bands.go): a neighbourhood filter is given its
//     halo of rows, geometry the source rows (or, for a warp, the rectangles) its
//     inverse map reads, and an edit that needs whole-image statistics or a coarse
//     grid of the whole image (CLAHE, dehaze, equalize, large blurs) a first pass
//     over the image before the strips. Operations read positions and sizes from the
//     frame a band belongs to (runCtx.frame), so a band renders exactly the rows the
//     whole image would. Edits that cannot be planned (see streamers) render the
//     image whole, and only they: band edits before them run as the source is
//     converted, and those after them stream into the encoder.
//
// The hottest loops have amd64 versions in Go assembly, used when the CPU has AVX
// or AVX2 (golang.org/x/sys/cpu) and never under the purego build tag: the
// separable convolution's taps (tapSum: every gaussian, so blur, sharpening and
// the filters built on them), the decoder's YCbCr-to-linear rows and the encoder's
// linear-to-YCbCr rows, the bilinear affine warp, flips, tone tables and
// exposure's scaling. Where the CPU also has AVX-512, tapSum, the warp, tone tables,
// the decoder's rows and the encoder's rows have wider loops that gather nothing
// (gathers are slow on some CPUs): the encoder's searches sRGB thresholds, the
// decoder's looks lin8 up in byte planes held in registers, tone tables load each
// bin by itself, and the warp samples each pixel in its own register and
// prefetches the input rows a slanted map reaches next. Each computes what its Go loop computes, operation for
// operation (no fused multiply-add, integer arithmetic replicated exactly), so a
// file's bytes do not depend on the machine; fastpaths_test.go holds every one to
// its Go loop.
//
// A flip followed by a bilinear affine warp (rotate, affine) is not rendered: the
// warp reads its input mirrored (heldFlip), the same pixels for one pass fewer.
// RenderSteps does the same across the steps of a pipeline rendered in the order
// given (augmentation): a step of flips waits for the step after it.
//
// A render runs a sequence of unmasked row operations (exposure, tone, contrast,
// curve, gamma: rowOps) as one pass, block by block while the rows are in cache;
// right after a warp, the warp runs them on each row as it samples it (postRows).
// Memory is the other cost a dataset run pays per image. Pixel buffers go back to
// a pool (spare), as do the decoder's planes and the encoder's strips. Buffers of
// 4 MiB or more start on a 2 MiB boundary and are advised for transparent huge
// pages, which GODEBUG=disablethp=1 turns off: on a virtual machine a 4 KiB page
// fault costs microseconds, and a run of 48 photos took 68,000 of them.
//
// JPEG decoding and encoding use jpegdec and jpegenc, Go's own image/jpeg forked and
// made several times faster while giving the same pixels (decode) and the same bytes
// (encode); the other formats use the standard library and golang.org/x/image. The
// Go benchmarks (make bench) measure each path on a 24-megapixel photo beside
// libvips and darktable (scripts/bench-peers.sh).
package engine
