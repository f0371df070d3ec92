package augment

import (
	"io"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/engine"
)

// Formats are the output formats of augmented images.
var Formats = []string{"png", "jpeg", "webp"}

// Format returns the canonical name of an output format, accepting the upper-case
// and short spellings clients send (PNG, JPEG, JPG, WEBP); anything else is
// invalid_input naming options.output_format.
func Format(name string) (string, error) {
	switch f := strings.ToLower(name); f {
	case "png", "jpeg", "webp":
		return f, nil
	case "jpg":
		return "jpeg", nil
	}
	return "", fieldError("options.output_format", "options.output_format %q is not one of %v", name, Formats)
}

// Ext returns the file extension of a canonical format.
func Ext(format string) string {
	if format == "jpeg" {
		return "jpg"
	}
	return format
}

// Encode writes a variant's image in format (any spelling Format takes): PNG 8-bit
// at zlib's fastest level, as OpenCV's cv2.imwrite writes it by default (the
// encode was most of a variant's time at zlib's default level), JPEG at quality (0
// for the engine's default), or lossless WebP, which has no quality.
func Encode(w io.Writer, img *engine.Image, format string, quality int) error {
	f, err := Format(format)
	if err != nil {
		return err
	}
	if f == "webp" {
		return engine.EncodeWebP(w, img)
	}
	if err := engine.Encode(w, img, engine.EncodeOptions{Format: f, Quality: quality, FastPNG: true}); err != nil {
		return darkroom.Wrap(darkroom.Code(err), err, "encode %s", f)
	}
	return nil
}
