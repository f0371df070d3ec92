#!/bin/sh
# Rebuilds the decode fixtures in this directory (README.md says what each is). Needs
# Go, and for the files other writers make: ImageMagick 6 (convert), cwebp (Debian
# package webp), exiftool (libimage-exiftool-perl) and the colord ICC profiles
# (colord-data).
set -eu
cd "$(dirname "$0")"
go run mkfixtures.go
icc=/usr/share/color/icc/colord
convert small.png -interlace Plane -quality 85 progressive.jpg
convert small.png -depth 16 -compress None rgb16-magick.tif
convert small.png -colorspace CMYK -quality 90 cmyk.jpg
convert small.png -quality 90 -profile "$icc/AdobeRGB1998.icc" adobergb.jpg
convert small.png -quality 90 -profile "$icc/sRGB.icc" srgb-profile.jpg
convert small.png -profile "$icc/ProPhotoRGB.icc" prophoto.png
cwebp -quiet -q 80 small.png -o lossy.webp
cwebp -quiet -lossless small.png -o lossless.webp
cwebp -quiet -q 80 -exact nrgba8.png -o alpha.webp
cp lossy.webp orient6.webp
exiftool -q -overwrite_original -n -Orientation=6 -Make=Example orient6.webp
cp small.png orient8.png
exiftool -q -overwrite_original -n -Orientation=8 -Model=PNG orient8.png
