package dataset

import "github.com/darkroom-mcp/darkroom/internal/bytepool"

// scratch keeps the byte buffers of images and variants already finished (a
// source's file, a variant's encoded bytes) for the next ones to reuse.
var scratch bytepool.Pool
