#!/usr/bin/env bash
# bench-bucket.sh: augment-dataset into a bucket against the same run on local disk,
# on this machine: COUNT JPEGs at 1024 px (cycled from the test photos), VARIANTS
# variants each of the 4-transform pipeline of bench-augment.sh, written as JPEG. The
# bucket is versitygw on loopback (its posix backend on the same disk), so the
# difference is the S3 protocol's cost (a PUT per file with its SHA-256 metadata, a
# GET per input file, the journal objects, the lock), not a network's. Reports, as
# the median of RUNS, wall seconds, output objects per second, output MB per second,
# and the bucket run's slowdown against local disk.
#
#   scripts/bench-bucket.sh [PHOTOS_DIR]   (default ../shared/testdata/photos)
#
# Needs versitygw ($VERSITYGW or on PATH; .ci/run shows how it is installed).
# Nothing is written outside a temporary directory.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$root/../shared/testdata/photos}
runs=${RUNS:-3}
count=${COUNT:-48}
variants=${VARIANTS:-2}
vgw=${VERSITYGW:-$(command -v versitygw || true)}
if [[ -z $vgw || ! -x $vgw ]]; then
	echo "bench-bucket: versitygw not installed; nothing to compare" >&2
	exit 0
fi
if [[ ! -d $src ]]; then
	echo "bench-bucket: $src not found; nothing to compare" >&2
	exit 0
fi
tmp=$(mktemp -d)
vpid=
trap '[[ -n $vpid ]] && kill $vpid; rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/darkroom" ./cmd/darkroom)

mkdir -p "$tmp/in" "$tmp/s3/data/in"
mapfile -t photos < <(find "$src" -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.png' \) ! -name 'large-*' | sort)
for ((i = 0; i < count; i++)); do
	p=${photos[$((i % ${#photos[@]}))]}
	"$tmp/darkroom" render "$p" "$tmp/in/img$(printf %04d "$i").jpg" --size 1024 --quality 95 >/dev/null 2>&1
done
# versitygw's posix backend serves a folder's files as the bucket's objects.
cp "$tmp"/in/*.jpg "$tmp/s3/data/in/"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret-0123456789 AWS_REGION=us-east-1
"$vgw" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port "127.0.0.1:$port" posix "$tmp/s3" >"$tmp/vgw.log" 2>&1 &
vpid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port" && break; sleep 0.1; done
q="?endpoint=http://127.0.0.1:$port&use_path_style=true"

pipeline='[{"entry": "flip_horizontal"}, {"entry": "rotate", "params": {"angle": 10}},
 {"entry": "brightness_contrast", "params": {"brightness": 0.26, "contrast": 0.2}},
 {"entry": "gaussian_blur", "params": {"radius": 0.00146}}]'
common=(--workspace "$tmp/ws" --pipeline "$pipeline" --variants "$variants" --seed 1 --output-format jpeg)
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }; e=$(date +%s.%N); echo "$e - $s" | bc; }

local_t=() bucket_t=()
for ((r = 0; r < runs; r++)); do
	rm -rf "$tmp/out"
	mkdir -p "$tmp/out"
	local_t+=("$(secs "$tmp/darkroom" augment-dataset "${common[@]}" --allow-root "$tmp/in" --allow-write-root "$tmp/out" --input "$tmp/in" --output "$tmp/out/local")")
	bucket_t+=("$(secs "$tmp/darkroom" augment-dataset "${common[@]}" --allow-root "s3://data/in$q" --allow-write-root "s3://data/out$q" --input s3://data/in --output "s3://data/out/run$r")")
done
objects=$(find "$tmp/out/local" -type f ! -name 'manifest*' ! -name 'darkroom-dataset.json' | wc -l)
mb=$(find "$tmp/out/local" -type f ! -name 'manifest*' ! -name 'darkroom-dataset.json' -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1e6}')
lt=$(printf '%s\n' "${local_t[@]}" | median)
bt=$(printf '%s\n' "${bucket_t[@]}" | median)
printf '%d images x %d variants, %d output objects, %s MB, %d cores, median of %d runs\n' "$count" "$variants" "$objects" "$mb" "$(nproc)" "$runs"
printf '%-14s %8s %10s %8s\n' where seconds objects/s MB/s
for w in local bucket; do
	t=$lt
	[[ $w == bucket ]] && t=$bt
	printf '%-14s %8.2f %10.1f %8.2f\n' "$w" "$t" "$(echo "$objects / $t" | bc -l)" "$(echo "$mb / $t" | bc -l)"
done
printf 'bucket / local: %.2fx the wall time\n' "$(echo "$bt / $lt" | bc -l)"
