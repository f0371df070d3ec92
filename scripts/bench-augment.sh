#!/usr/bin/env bash
# bench-augment.sh: augmentation throughput beside its peers, in one run on the same
# images: darkroom augment-dataset, a Python OpenCV loop (scripts/bench_dataset_opencv.py,
# Debian's python3-opencv, what albumentations runs on) and ImageMagick, each with one
# worker per core, on COUNT photos at 1024 px on the long edge, the same 4-transform
# pipeline: horizontal flip, rotate 10 degrees, brightness/contrast, gaussian blur of
# sigma 1.5 px, written as JPEG. Reports images per second (median of RUNS) and peak
# resident memory (/usr/bin/time's %M; for OpenCV the sum over its processes).
#
#   scripts/bench-augment.sh [PHOTOS_DIR]   (default ../shared/testdata/photos)
#
# Peers that are not installed are skipped. Nothing is written outside a temporary
# directory.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$root/../shared/testdata/photos}
runs=${RUNS:-3}
count=${COUNT:-48}
cores=$(nproc)
if [[ ! -d $src ]]; then
	echo "bench-augment: $src not found; nothing to compare" >&2
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
py=/usr/bin/python3
[[ -x $py ]] || py=python3

(cd "$root" && go build -o "$tmp/darkroom" ./cmd/darkroom)

# The input: COUNT JPEGs at 1024 px on the long edge (quality 95), cycled from the
# source photos (the 24 MP one excepted: its decode alone would be the benchmark).
# The test photos are smaller than that: ImageMagick scales them up when installed;
# darkroom render, the fallback, only scales down, and the table then says the size.
mkdir -p "$tmp/in"
mapfile -t photos < <(find "$src" -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.png' \) ! -name 'large-*' | sort)
for ((i = 0; i < count; i++)); do
	p=${photos[$((i % ${#photos[@]}))]}
	o=$tmp/in/img$(printf %04d "$i").jpg
	if have convert; then
		convert "$p" -auto-orient -resize 1024x1024 -quality 95 "$o"
	else
		"$tmp/darkroom" render "$p" "$o" --size 1024 --quality 95 >/dev/null 2>&1
	fi
done

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "-"; exit}; if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
declare -A rate rss

# timed NAME CMD...: RUNS runs of CMD after a warm-up, each into a fresh output;
# rate[NAME] is count / median wall seconds, rss[NAME] the median peak MB.
timed() {
	local name=$1
	shift
	rm -rf "$tmp/out" && mkdir -p "$tmp/out"
	if ! "$@" >"$tmp/log" 2>&1; then
		echo "bench-augment: $name failed, skipped" >&2
		tail -5 "$tmp/log" >&2
		return 0
	fi
	: >"$tmp/w" && : >"$tmp/m"
	for ((r = 0; r < runs; r++)); do
		rm -rf "$tmp/out" "$tmp/ws" && mkdir -p "$tmp/out"
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>&1
		read -r e m <"$tmp/t"
		echo "$e" >>"$tmp/w"
		echo "$m" >>"$tmp/m"
	done
	rate[$name]=$(median <"$tmp/w" | awk -v n="$count" '{printf "%.1f", n / $1}')
	rss[$name]=$(median <"$tmp/m" | awk '{printf "%.0f", $1 / 1024}')
}

# gaussian_blur's radius is its sigma as a fraction of the long edge: 0.00146 is
# sigma 1.5 px at 1024 px, the peers' blur.
pipeline='[{"entry": "flip_horizontal"}, {"entry": "rotate", "params": {"angle": 10}},
 {"entry": "brightness_contrast", "params": {"brightness": 0.26, "contrast": 0.2}},
 {"entry": "gaussian_blur", "params": {"radius": 0.00146}}]'
timed darkroom "$tmp/darkroom" augment-dataset --workspace "$tmp/ws" --allow-root "$tmp/in" \
	--allow-write-root "$tmp/out" --input "$tmp/in" --output "$tmp/out/d" --pipeline "$pipeline" \
	--output-format jpeg --variants 1 --seed 1
# The same run timed as the OpenCV script times itself, from the moment it is ready
# (process start-up, contract and vocabulary loading excluded) to the last image
# written: darkroom's own elapsed_ms for the run (manifest and sync included).
: >"$tmp/e"
for ((r = 0; r < runs; r++)); do
	rm -rf "$tmp/out" "$tmp/ws" && mkdir -p "$tmp/out"
	"$tmp/darkroom" augment-dataset --workspace "$tmp/ws" --allow-root "$tmp/in" \
		--allow-write-root "$tmp/out" --input "$tmp/in" --output "$tmp/out/d" --pipeline "$pipeline" \
		--output-format jpeg --variants 1 --seed 1 | sed -n 's/^ *elapsed_ms: //p' >>"$tmp/e"
done
if [[ -s $tmp/e ]]; then
	rate[darkroom-run]=$(median <"$tmp/e" | awk -v n="$count" '{printf "%.1f", n / ($1 / 1000)}')
	rss[darkroom-run]=${rss[darkroom]:-}
fi

if $py -c 'import cv2' 2>/dev/null; then
	$py "$root/scripts/bench_dataset_opencv.py" --input "$tmp/in" --runs "$runs" --json >"$tmp/cv.json" 2>/dev/null || true
	if [[ -s $tmp/cv.json ]]; then
		rate[opencv]=$($py -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["images_per_second"])' "$tmp/cv.json")
		rss[opencv]=$($py -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.0f" % d.get("peak_rss_mb_total", d.get("peak_rss_mb", 0)))' "$tmp/cv.json")
	fi
else
	echo "bench-augment: python3-opencv not installed, OpenCV skipped" >&2
fi

if have convert; then
	timed imagemagick sh -c "cd '$tmp/in' && ls *.jpg | xargs -P $cores -I{} convert {} -flop -virtual-pixel mirror -distort SRT 10 -brightness-contrast 10x20 -gaussian-blur 0x1.5 -quality 95 '$tmp/out/{}'"
else
	echo "bench-augment: ImageMagick not installed, skipped" >&2
fi

size=$(identify -format '%wx%h' "$tmp/in/img0000.jpg" 2>/dev/null || echo "1024 px or less")
printf '\naugmentation, %d images of %s, 4 transforms, %d workers (median of %d)\n' "$count" "$size" "$cores" "$runs"
printf '  darkroom: whole process (exec to exit); darkroom-run: its run alone, timed as the\n'
printf '  OpenCV script times itself (workers up to last image written); ratios are of darkroom-run\n'
printf '%-13s %12s %14s %18s\n' tool 'images/s' 'peak RSS MB' 'darkroom/peer rate'
for t in darkroom darkroom-run opencv imagemagick; do
	[[ -n ${rate[$t]:-} ]] || continue
	ratio=$(awk -v a="${rate[darkroom-run]:-${rate[darkroom]:-0}}" -v b="${rate[$t]}" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
	printf '%-13s %12s %14s %18s\n' "$t" "${rate[$t]}" "${rss[$t]}" "$ratio"
done
