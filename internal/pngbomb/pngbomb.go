// Package pngbomb writes PNG files whose header declares more than their data holds,
// for the tests that check every decode is costed from the header before anything is
// allocated (a decompression bomb). It is test support: no server code imports it.
package pngbomb

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// OneByteIDAT is the zlib stream of one zero byte: an IDAT that holds almost nothing,
// so only a decoder that trusts the header allocates the size it declares.
var OneByteIDAT = []byte{0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1}

// PNG returns a PNG of w x h pixels of the colour type (0 grey, 2 truecolour,
// 6 RGBA) and bit depth, whose one IDAT chunk is idat (zlib-compressed rows, or
// OneByteIDAT for a file of under a hundred bytes).
func PNG(w, h int, colourType, depth byte, idat []byte) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(typ)
		out.Write(data)
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = depth, colourType
	chunk("IHDR", ihdr)
	chunk("IDAT", idat)
	chunk("IEND", nil)
	return out.Bytes()
}
