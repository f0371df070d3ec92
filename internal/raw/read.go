package raw

import (
	"errors"
	"runtime"
	"sync"
)

// readSamples reads the raw image's strips or tiles into one plane of
// Width*Height*spp samples, several strips or tiles at once.
func (f *File) readSamples() ([]uint16, error) {
	W, H, spp := f.Width, f.Height, f.spp
	plane := make([]uint16, W*H*spp)
	across := (W + f.tileW - 1) / f.tileW
	down := (H + f.tileH - 1) / f.tileH
	n := across * down
	errs := make([]error, n)
	var next sync.Mutex
	k := 0
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				i := k
				k++
				next.Unlock()
				if i >= n {
					return
				}
				errs[i] = f.readTile(plane, i, i%across*f.tileW, i/across*f.tileH)
			}
		}()
	}
	wg.Wait()
	return plane, errors.Join(errs...)
}

// readTile decodes strip or tile i, whose top left pixel is x0, y0.
func (f *File) readTile(plane []uint16, i, x0, y0 int) error {
	t := f.t
	o, _ := t.uint(f.offsets, i)
	c, _ := t.uint(f.cnts, i)
	data := t.b[o : o+c]
	W, H, spp := f.Width, f.Height, f.spp
	tw := f.tileW
	rows := min(f.tileH, H-y0)
	put := func(y int, row []uint16) { // row holds tw*spp samples of tile row y
		if y >= rows {
			return
		}
		n := min(tw, W-x0) * spp
		copy(plane[((y0+y)*W+x0)*spp:][:n], row[:n])
	}
	if f.compression == compNone {
		stride := (tw*spp*f.bits + 7) / 8
		row := make([]uint16, tw*spp)
		for y := range rows {
			src := data[y*stride : (y+1)*stride]
			switch f.bits {
			case 16:
				for x := range row {
					row[x] = t.bo.Uint16(src[2*x:])
				}
			case 8:
				for x := range row {
					row[x] = uint16(src[x])
				}
			default:
				var acc uint64
				var nb uint
				p := 0
				b := uint(f.bits)
				for x := range row {
					for nb < b {
						acc = acc<<8 | uint64(src[p])
						p++
						nb += 8
					}
					row[x] = uint16(acc >> (nb - b) & (1<<b - 1))
					nb -= b
				}
			}
			put(y, row)
		}
		return nil
	}
	j, err := f.frame(i, data, rows)
	if err != nil {
		return err
	}
	tile := make([]uint16, tw*spp)
	fill, ty := 0, 0
	err = j.decode(func(_ int, s []uint16) {
		for len(s) > 0 && ty < rows {
			k := copy(tile[fill:], s)
			fill += k
			s = s[k:]
			if fill == len(tile) {
				put(ty, tile)
				ty++
				fill = 0
			}
		}
	})
	if err != nil {
		return invalid("strip or tile %d: lossless JPEG: %v", i, err)
	}
	return nil
}

// frame reads the lossless JPEG header of strip or tile i, whose rows rows lie in
// the image, and checks that its frame fills them: the frame's samples fill the
// tile row by row whatever its own shape (DNG writers often code a 2-component
// frame of half the tile's width), and may not be much larger.
func (f *File) frame(i int, data []byte, rows int) (*ljpeg, error) {
	j, err := parseLJ92(data)
	if errors.Is(err, errLossy) {
		return nil, invalid("strip or tile %d is lossy JPEG, which is not supported (only lossless JPEG DNGs are)", i)
	}
	if err != nil {
		return nil, invalid("strip or tile %d: lossless JPEG: %v", i, err)
	}
	n := int64(j.w) * int64(j.comps) * int64(j.h)
	if n < int64(f.tileW)*int64(rows)*int64(f.spp) || n > 4*int64(f.tileW)*int64(f.tileH)*int64(f.spp)+int64(j.w*j.comps) {
		return nil, invalid("strip or tile %d: its lossless JPEG frame is %dx%dx%d, the tile %dx%dx%d",
			i, j.w, j.h, j.comps, f.tileW, f.tileH, f.spp)
	}
	return j, nil
}
