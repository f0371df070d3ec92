#!/bin/sh
# Rebuilds the JPEG fixtures (see README.md). Needs vips 8.14, ImageMagick 6.9
# and Go. Run from this directory.
set -e
photos=../../../../shared/testdata/photos
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp $photos/rocket.jpg rocket.jpg
vips crop $photos/rocket.jpg $tmp/a.png 200 100 171 99   # 171x99
vips crop $photos/rocket.jpg $tmp/b.png 150 150 203 117  # 203x117

vips jpegsave $tmp/a.png yuv444.jpg --Q 85 --subsample-mode off
convert $tmp/a.png -sampling-factor 2x1 -quality 85 yuv422.jpg
convert $tmp/a.png -sampling-factor 1x2 -quality 85 yuv440.jpg
convert $tmp/a.png -sampling-factor 4x1 -quality 85 yuv411.jpg
convert $tmp/a.png -sampling-factor 4x2 -quality 85 yuv410.jpg
vips jpegsave $tmp/a.png optimized.jpg --Q 90 --optimize-coding
vips jpegsave $tmp/b.png restart.jpg --Q 85 --restart-interval 5
vips jpegsave $tmp/a.png progressive-restart.jpg --Q 85 --interlace --restart-interval 4 --subsample-mode off
vips jpegsave $tmp/b.png progressive-restart420.jpg --Q 85 --interlace --restart-interval 4
convert $tmp/a.png -colorspace Gray $tmp/g.png
vips jpegsave $tmp/g.png restart-gray.jpg --Q 85 --restart-interval 3
vips jpegsave $tmp/g.png progressive-restart-gray.jpg --Q 85 --interlace --restart-interval 3
vips jpegsave $tmp/b.png progressive420.jpg --Q 85 --interlace
vips jpegsave $tmp/a.png progressive444.jpg --Q 85 --interlace --subsample-mode off
convert $tmp/a.png -sampling-factor 2x1 -interlace Plane -quality 85 progressive422.jpg
convert $tmp/a.png -colorspace Gray -interlace Plane -quality 80 progressive-gray.jpg
vips jpegsave $photos/rocket.jpg rocket-progressive.jpg --Q 85 --interlace
convert $tmp/a.png -colorspace CMYK -sampling-factor 1x1 -quality 85 ycck.jpg
convert $tmp/a.png -colorspace CMYK -sampling-factor 2x2,1x1,1x1,2x2 -quality 85 ycck2211.jpg

go run mkfixtures.go $tmp/b.png
