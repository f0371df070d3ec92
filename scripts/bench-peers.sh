#!/usr/bin/env bash
# bench-peers.sh: darkroom's engine beside the image tools it is measured against, on
# the same photo in one run, as ratios darkroom/peer (lower is better for darkroom).
#
#   scripts/bench-peers.sh [PHOTO]     (default ../shared/testdata/photos/large-24mp.jpg)
#
# Peers that are not installed are skipped (on Debian: apt-get install libvips-tools
# imagemagick darktable time). Each command runs RUNS times (default 5) after one
# untimed warm-up; the table shows medians of wall time and of peak resident memory
# (/usr/bin/time's %M), and CPU time, which other work on a shared machine disturbs
# far less than wall time. The in-process numbers (preview after an edit, which needs a
# cached source) come from the engine's Go benchmarks, run here as
#   go test -run '^$' -bench 'Preview|Export' ./internal/engine
# Nothing is installed or written outside a temporary directory.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
photo=${1:-$root/../shared/testdata/photos/large-24mp.jpg}
runs=${RUNS:-5}
if [[ ! -f $photo ]]; then
	echo "bench-peers: $photo not found; nothing to compare" >&2
	exit 0
fi
photo=$(cd "$(dirname "$photo")" && pwd)/$(basename "$photo")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && go build -o "$tmp/darkroom" ./cmd/darkroom)

have() { command -v "$1" >/dev/null 2>&1; }
timer=""
if [[ -x /usr/bin/time ]]; then
	timer=/usr/bin/time
else
	echo "bench-peers: /usr/bin/time not found: wall times only, no peak memory" >&2
fi

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "-"; exit}; if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# measure NAME CMD...: runs CMD once untimed, then RUNS times; sets wall[NAME]
# (seconds), cpu[NAME] (user+system seconds: what a busy machine disturbs least) and
# rss[NAME] (MB) to the medians.
declare -A wall cpu rss
measure() {
	local name=$1
	shift
	if ! "$@" >"$tmp/out.log" 2>&1; then
		echo "bench-peers: $name failed, skipped: $*" >&2
		sed 's/^/    /' "$tmp/out.log" | tail -5 >&2
		return 0
	fi
	: >"$tmp/w" && : >"$tmp/m" && : >"$tmp/c"
	for ((i = 0; i < runs; i++)); do
		if [[ -n $timer ]]; then
			$timer -f '%e %M %U %S' -o "$tmp/t" "$@" >/dev/null 2>&1
			read -r e m u k <"$tmp/t"
			echo "$u $k" | awk '{print $1 + $2}' >>"$tmp/c"
		else
			local s
			s=$(date +%s.%N)
			"$@" >/dev/null 2>&1
			e=$(echo "$(date +%s.%N) - $s" | bc)
			m=""
		fi
		echo "$e" >>"$tmp/w"
		[[ -n $m ]] && echo "$((m / 1024))" >>"$tmp/m"
	done
	wall[$name]=$(median <"$tmp/w")
	cpu[$name]=$(median <"$tmp/c")
	rss[$name]=$(median <"$tmp/m")
}

# The five operations of the benchmarks (the CLI has no masks, so here saturation is
# not masked; the Go benchmarks mask it with an ellipse).
ops=(--op exposure:ev=0.4 --op white_balance:temperature=800,tint=0.1 --op contrast:amount=0.3
	--op saturation:amount=0.4 --op vignette:amount=-0.4)

echo "photo: $photo ($(stat -c %s "$photo") bytes), $runs runs each, $(nproc) cores"
measure "darkroom render --size 1024" "$tmp/darkroom" render "$photo" "$tmp/dr-1024.jpg" --size 1024 "${ops[@]}"
measure "darkroom render (full size)" "$tmp/darkroom" render "$photo" "$tmp/dr-full.jpg" --quality 90 "${ops[@]}"
if have vipsthumbnail; then
	measure "vipsthumbnail -s 1024" vipsthumbnail -s 1024 "$photo" -o "$tmp/vt.jpg"
fi
if have vips; then
	measure "vips linear + jpeg save" vips linear "$photo" "$tmp/vl.jpg[Q=90]" 1.1 0.02
fi
# /usr/local/bin/convert may be a stand-in; only ImageMagick's own says so.
if have convert && convert -version 2>/dev/null | grep -q ImageMagick; then
	measure "convert -resize 1024x1024" convert "$photo" -resize 1024x1024 "$tmp/im.jpg"
fi
if have darktable-cli; then
	measure "darktable-cli --width 1024" darktable-cli "$photo" "$tmp/dt.jpg" --width 1024 --height 1024 --hq false \
		--core --configdir "$tmp/darktable" --library :memory:
fi

# Streamed exports: full-size JPEG q90 with edits that reach across rows or move
# pixels, each beside the closest vips pipeline, chained through .v files (vips's
# own uncompressed format) in one shell, so the time is the chain's and the peak
# memory its largest process's. vips has no guided filter, large-radius clarity or
# film grain: those rows pair darkroom with vips doing comparable work, said in the
# label. The same edits are the Go benchmark BenchmarkExportStream.
sharpen=sharpen:amount=1,radius=0.0002 # a 1.2-pixel sigma at 6000 pixels
declare -A streams peers
streams[sharpen]="--op exposure:ev=0.3 --op $sharpen"
peers[sharpen]="vips linear @IN@ a.v 1.23 0 --uchar && vips sharpen a.v @OUT@ --sigma 1.2"
streams[grain]="${ops[*]} --op grain:amount=0.5"
peers[grain]="vips linear @IN@ a.v 1.1 0.02 --uchar && vips gaussnoise n.v @W@ @H@ --sigma 12 --mean 0 && vips gaussblur n.v nb.v 1 && vips add a.v nb.v @OUT@"
streams[clarity]="--op exposure:ev=0.3 --op clarity:amount=0.4 --op denoise:amount=0.5"
peers[clarity]="vips linear @IN@ a.v 1.23 0 --uchar && vips gaussblur a.v b.v 2 && vips sharpen b.v @OUT@ --sigma 3"
streams[rotate]="--op crop:left=0.05,right=0.05,top=0.05,bottom=0.05 --op rotate:angle=3 --op $sharpen"
peers[rotate]="vips crop @IN@ a.v @CROP@ && vips rotate a.v b.v 3 && vips sharpen b.v @OUT@ --sigma 1.2"
streams[augment]="--op flip:horizontal=true --op affine:scale=1.1,angle=10 --op blur:radius=0.0005 --op contrast:amount=0.2"
peers[augment]="vips flip @IN@ a.v horizontal && vips similarity a.v b.v --scale 1.1 --angle 10 && vips gaussblur b.v c.v 3 && vips linear --uchar -- c.v @OUT@ 1.2 -25"
labels=(sharpen "exposure + sharpen / vips linear, sharpen"
	grain "5 band ops + grain / vips linear, gaussnoise, gaussblur, add"
	clarity "exposure + clarity + denoise / vips linear, gaussblur, sharpen"
	rotate "crop + rotate 3 + sharpen / vips crop, rotate, sharpen"
	augment "flip, affine, blur, contrast / vips flip, similarity, gaussblur, linear")
# stream NAME PHOTO W H SUFFIX: measures darkroom's export and the vips chain.
stream() {
	local name=$1 in=$2 w=$3 h=$4 sfx=$5
	# shellcheck disable=SC2086 # the edits are words
	measure "stream $name$sfx: darkroom" "$tmp/darkroom" render "$in" "$tmp/s-$name.jpg" --quality 90 ${streams[$name]}
	if have vips; then
		local chain=${peers[$name]//@IN@/$in}
		chain=${chain//@OUT@/$tmp/v-$name.jpg[Q=90]}
		chain=${chain//@W@/$w}
		chain=${chain//@H@/$h}
		# crop's 5% from each side
		chain=${chain//@CROP@/$((w / 20)) $((h / 20)) $((w - 2 * (w / 20))) $((h - 2 * (h / 20)))}
		measure "stream $name$sfx: vips" sh -c "cd '$tmp' && $chain && rm -f '$tmp'/*.v"
	fi
}
size=$(vipsheader -f width "$photo" 2>/dev/null || echo 6000)x$(vipsheader -f height "$photo" 2>/dev/null || echo 4000)
for name in sharpen grain clarity rotate augment; do
	stream "$name" "$photo" "${size%x*}" "${size#*x}" ""
done
# The 100-megapixel case: the photo upscaled twice each way by vips, in the
# temporary directory, keeping its 4:2:0 chroma as a camera writes it (vips would
# save 4:4:4 at this quality, whose decoded planes alone take 288 MB at 96 MP).
if have vips; then
	vips resize "$photo" "$tmp/big.jpg[Q=90,subsample-mode=on]" 2
	for name in sharpen rotate; do
		stream "$name" "$tmp/big.jpg" "$(vipsheader -f width "$tmp/big.jpg")" "$(vipsheader -f height "$tmp/big.jpg")" " (96 MP)"
	done
fi

echo
echo "go test -run '^\$' -bench 'Preview|Export' ./internal/engine"
(cd "$root" && DARKROOM_BENCH_PHOTO=$photo go test -run '^$' -bench 'Preview|Export' -count "${COUNT:-3}" ./internal/engine) | tee "$tmp/bench.txt"
# gobench NAME: median seconds per op of a Go benchmark.
gobench() {
	awk -v n="$1" '$1 ~ "^"n"(-[0-9]+)?$" {print $3/1e9}' "$tmp/bench.txt" | median
}
gometric() {
	awk -v n="$1" -v u="$2" '$1 ~ "^"n"(-[0-9]+)?$" {for (i=4;i<NF;i++) if ($(i+1)==u) print $i}' "$tmp/bench.txt" | median
}
wall["go: preview after an edit (jpeg)"]=$(gobench BenchmarkPreviewAfterEdit/jpeg)
wall["go: preview after an edit (image)"]=$(gobench BenchmarkPreviewAfterEdit/image)
wall["go: first preview"]=$(gobench BenchmarkFirstPreview)
wall["go: export"]=$(gobench BenchmarkExport)
rss["go: export"]=$(gometric BenchmarkExport peak-RSS-MB)
ms() { gometric "$1" cpu-ms/op | awk '$1 != "-" {print $1 / 1000}'; }
cpu["go: preview after an edit (jpeg)"]=$(ms BenchmarkPreviewAfterEdit/jpeg)
cpu["go: preview after an edit (image)"]=$(ms BenchmarkPreviewAfterEdit/image)
cpu["go: first preview"]=$(ms BenchmarkFirstPreview)
cpu["go: export"]=$(ms BenchmarkExport)

echo
echo "medians: wall time, CPU time (user+system) and peak RSS:"
for k in "${!wall[@]}"; do
	printf '  %-36s %9s s wall %7s s cpu %6s MB\n' "$k" "${wall[$k]}" "${cpu[$k]:--}" "${rss[$k]:--}"
done | sort

# row LABEL DARKROOM PEER TARGET: one ratio line, when both sides were measured.
row() {
	local d=${wall[$2]:-} p=${wall[$3]:-}
	if [[ -z $d || -z $p || $d == - || $p == - ]]; then
		printf '  %-58s %9s   (%s)\n' "$1" "skipped" "$4"
		return
	fi
	awk -v l="$1" -v d="$d" -v p="$p" -v t="$4" 'BEGIN {printf "  %-58s %9.3f   (%s)\n", l, d/p, t}'
}
echo
echo "ratios darkroom/peer (wall time):"
row "preview after edit (go, jpeg) / vipsthumbnail" "go: preview after an edit (jpeg)" "vipsthumbnail -s 1024" "target <= 0.167"
row "preview after edit (go, jpeg) / darktable-cli" "go: preview after an edit (jpeg)" "darktable-cli --width 1024" "target <= 0.033"
row "first preview (go) / vipsthumbnail" "go: first preview" "vipsthumbnail -s 1024" "target <= 2.5"
row "first preview (cli process) / vipsthumbnail" "darkroom render --size 1024" "vipsthumbnail -s 1024" "target <= 2.5"
row "first preview (cli process) / convert -resize" "darkroom render --size 1024" "convert -resize 1024x1024" "anchor"
row "export (go) / vips linear" "go: export" "vips linear + jpeg save" "target <= 3"
row "export (cli process) / vips linear" "darkroom render (full size)" "vips linear + jpeg save" "target <= 3"
# The same for CPU time, between commands measured as whole processes.
cpurow() {
	local d=${cpu[$2]:-} p=${cpu[$3]:-}
	if [[ -z $d || -z $p || $d == - || $p == - ]]; then
		printf '  %-58s %9s\n' "$1" "skipped"
		return
	fi
	awk -v l="$1" -v d="$d" -v p="$p" 'BEGIN {printf "  %-58s %9.3f\n", l, d/p}'
}
echo
echo "ratios darkroom/peer (CPU time on all cores; darkroom spreads its work over"
echo "every core where the peers' wall time is mostly one core's, so on an idle"
echo "machine its wall-time ratio is lower than these):"
cpurow "preview after edit (go, jpeg) / vipsthumbnail" "go: preview after an edit (jpeg)" "vipsthumbnail -s 1024"
cpurow "preview after edit (go, jpeg) / darktable-cli" "go: preview after an edit (jpeg)" "darktable-cli --width 1024"
cpurow "first preview (go) / vipsthumbnail" "go: first preview" "vipsthumbnail -s 1024"
cpurow "export (go) / vips linear" "go: export" "vips linear + jpeg save"
cpurow "first preview (cli) / vipsthumbnail" "darkroom render --size 1024" "vipsthumbnail -s 1024"
cpurow "first preview (cli) / darktable-cli" "darkroom render --size 1024" "darktable-cli --width 1024"
cpurow "export (cli) / vips linear" "darkroom render (full size)" "vips linear + jpeg save"
echo
echo "streamed exports, full-size JPEG q90 (wall-time ratio darkroom/vips, target <= 3;"
echo "peak RSS, target < 300 MB, stretch 150; 96 MP < 400 MB):"
srow() {
	local d=${wall["stream $1: darkroom"]:-} v=${wall["stream $1: vips"]:-}
	local dm=${rss["stream $1: darkroom"]:--} vm=${rss["stream $1: vips"]:--}
	local dc=${cpu["stream $1: darkroom"]:--} vc=${cpu["stream $1: vips"]:--}
	if [[ -z $d || -z $v || $d == - || $v == - ]]; then
		printf '  %-66s %9s\n' "$2" "skipped"
		return
	fi
	awk -v l="$2" -v d="$d" -v v="$v" -v dc="$dc" -v vc="$vc" -v dm="$dm" -v vm="$vm" \
		'BEGIN {printf "  %-66s %6.2fx wall %6.2fx cpu   %5s MB / %5s MB\n", l, d/v, (vc > 0 ? dc/vc : 0), dm, vm}'
}
for ((i = 0; i < ${#labels[@]}; i += 2)); do
	srow "${labels[i]}" "${labels[i+1]}"
done
for name in sharpen rotate; do
	for ((i = 0; i < ${#labels[@]}; i += 2)); do
		[[ ${labels[i]} == "$name" ]] && srow "$name (96 MP)" "${labels[i+1]} (96 MP)"
	done
done

echo
echo "peak memory of the export: go benchmark ${rss["go: export"]:--} MB," \
	"cli ${rss["darkroom render (full size)"]:--} MB, vips ${rss["vips linear + jpeg save"]:--} MB (target < 300 MB)"
