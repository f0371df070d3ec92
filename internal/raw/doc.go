// Package raw reads camera raw photographs in the DNG format (Adobe's Digital
// Negative, which phones, Adobe DNG Converter and many cameras write) in pure Go,
// and develops them into linear-light sRGB floats, scene-referred: 1 is the white
// the sensor clips at after white balance and BaselineExposure, and brighter
// values are kept, so an edit can bring highlights back until the output
// transform clips them.
//
// # What is read
//
// The TIFF structure (either byte order, IFD0 and its SubIFDs, the EXIF IFD); the
// raw image is the directory with NewSubFileType 0 and photometric CFA (32803) or
// LinearRaw (34892), in strips or tiles, uncompressed (8 to 16 bits, packed rows)
// or lossless JPEG (compression 7 holding an ITU T.81 process 14 frame, "LJ92":
// 1 to 4 components, predictors 1 to 7, restart intervals of whole rows). Its frame
// fills the tile row by row whatever its own shape, as DNG allows (writers often
// code a two-component frame of half the tile's width). Then, in order:
// LinearizationTable (up to 65536 entries), BlackLevel with BlackLevelRepeatDim
// (its pattern's origin the ActiveArea's, as the DNG specification and dcraw have
// it) and BlackLevelDeltaH/V, WhiteLevel, ActiveArea, the CFA pattern (2x2 Bayer
// of red, green and blue, any phase; or 6x6, Fujifilm's X-Trans, any phase, whose
// every 3x3 window holds all three colours), white balance from AsShotNeutral or AsShotWhiteXY,
// ColorMatrix1/2 and ForwardMatrix1/2 interpolated for the as-shot white by
// CalibrationIlluminant (colour.go), BaselineExposure, DefaultCrop and
// Orientation (reported, not applied: the caller turns the image upright), and
// Make, Model, LensModel, ISO, ExposureTime, FNumber and FocalLength.
//
// Refused with invalid_input, naming what the file is: lossy JPEG DNGs
// (compression 34892, or a baseline frame inside compression 7), JPEG XL DNGs
// (52546), floating-point and deflate DNGs, CFA patterns other than 2x2 and 6x6,
// a CFAPattern whose count is not CFARepeatPatternDim's, 6x6 patterns with a 3x3
// window lacking red, green or blue, monochrome DNGs, planar data. Opcode lists (OpcodeList1/2/3: gain maps, lens
// corrections, bad pixels) are not applied; File.Warnings names each one, and
// ingest shows them. AnalogBalance is not applied either, and said so.
//
// # Hostile files
//
// Probe reads only the headers and checks, before anything the size of the image
// is allocated, that every tag's values lie inside the file (so a count of 2^31
// costs nothing), that the strips or tiles the image needs are listed and inside
// the file, that uncompressed ones hold their pixels, that the stored size is
// within the caller's pixel cap and the tables within their bounds. File.Bytes
// then says what Decode will hold, which the engine takes from its decode budget
// first. FuzzDNG and FuzzLJ92 exercise both readers.
//
// # Demosaicing
//
// Decode with Options.Half bins each 2x2 block of the mosaic into one pixel (red,
// the mean of the greens, blue): no interpolation, a quarter of the pixels, what a
// preview proxy needs; dcraw -h does the same, and agrees to 80 dB. The full
// decode uses RCD, Ratio Corrected Demosaicing (Luis Sanz Rodríguez, 2017,
// https://github.com/LuisSR/RCD-Demosaicing, the default of RawTherapee and
// darktable), rcd.go: an edge-aware method that keeps AHD's sharpness without its
// maze artefacts. It runs in 488-pixel tiles with mirrored borders, on every core,
// so its scratch is a few megabytes per core.
//
// X-Trans (xtrans.go) is demosaiced as dcraw's and LibRaw's lin_interpolate, what
// dcraw -q 0 does on X-Trans: each missing colour is the weighted mean of that
// colour's sites among the eight neighbours (2 beside, 1 diagonal). It is
// bilinear, not edge-aware: 36.9 dB against the known image where RCD gets 46 on
// the Bayer mosaic of the same photo, and it agrees with dcraw -q 0 within 59.8 dB
// and dcraw_emu -q 0 within 51.8 dB. Markesteijn's X-Trans method (dcraw -q 3) is
// not implemented. Options.Half bins Fujifilm's 3x3 cells (green at the centre and
// corners, two red and two blue sites facing each other across it) into one pixel
// each, a ninth of the pixels: every colour is centred on its cell, so the colours
// stay in register (44.6 dB against the known image's cell means), and the grid
// starts where the pattern's cells do, up to two columns and rows into the
// DefaultCrop, which OutSize accounts for (the preview is shifted by up to two
// thirds of one of its pixels). The engine bins only when the binned size covers
// the preview it is asked for.
//
// Blown highlights are reconstructed by dcraw's "blend" method (dcraw -H 2,
// blend_highlights in Dave Coffin's dcraw.c; LibRaw's -H 2), highlights.go:
// after demosaicing (or binning) and white balance, before the colour matrix, a
// pixel with a channel above the lowest channel's clip level keeps its brightness
// (the mean of its white-balanced values, clipped samples at their own clip
// level) and takes its chroma from its values clipped at that level. A patch where
// green clipped under unclipped red and blue comes out neutral instead of magenta
// (chroma 0.6 before, under 0.01 now), one where every channel clipped neutral at
// the mean of the channels' clip levels, so it stays above 1, and pixels whose
// channels are all at most the lowest clip level are untouched (bit for bit). The
// method also takes some saturation from a bright colour whose strongest channel
// is above that level without having clipped, as dcraw's does. It agrees with
// dcraw -H 2 on the same file within 43 dB (TestHighlightsAgainstDcraw).
//
// # How it is tested without camera files
//
// Synth writes DNGs from known linear images (the test photos), the inverse of
// Decode: through the inverse colour matrix, divided by the white balance, scaled
// between black and white levels, mosaicked, written uncompressed or as LJ92, in
// strips or tiles. The tests require the known image back (RCD 46 dB on a photo
// blurred as an anti-aliasing filter would, where dcraw's AHD gets 40.4), dcraw's
// and LibRaw's development of the same files with the same options within 40 dB
// (demosaiced, RCD against AHD), 60 dB (half size) and, on X-Trans, 55 and 48 dB
// (both lin_interpolate, dcraw -q 0 and dcraw_emu -q 0), and the samples read to be
// exactly dcraw's unprocessed raw data (dcraw -D -4). samples/coffee.dng is made
// by Synth from samples/coffee.png.
package raw
