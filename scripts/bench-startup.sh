#!/usr/bin/env bash
# bench-startup.sh: what a client waits for before darkroom answers, beside the floor
# (a go-sdk MCP server with one tool and nothing to load, scripts/floor), as medians
# over RUNS runs (default 20) and ratios darkroom/floor:
#   - exec to the first tools/list reply of `darkroom serve`, cold (an empty cache
#     directory: contracts and built-in packs loaded by CUE before the reply) and
#     warm (answered from the snapshot an earlier start-up kept, while CUE loads);
#   - exec to exit of the CLI calls `darkroom get-state IMG` and `darkroom log IMG`,
#     warm (CUE evaluates the part of the contract the tool refers to), against the
#     floor's exec to its tools/list reply.
# Timing is scripts/startup (Go's monotonic clock around exec); peak memory of one
# warm serve comes from /usr/bin/time when it is installed. Everything is built and
# written in a temporary directory; XDG_CACHE_HOME points into it, so the user's
# cache is not touched.
#
#   scripts/bench-startup.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$root" && go build -o "$tmp/darkroom" ./cmd/darkroom && go build -o "$tmp/floor" ./scripts/floor && go build -o "$tmp/startup" ./scripts/startup)
export XDG_CACHE_HOME=$tmp/cache
ws=$tmp/ws
"$tmp/darkroom" ingest --workspace "$ws" --allow-root "$root/samples" --image-id bench "$root/samples/coffee.png" >/dev/null

median() { sed -n 's/^median \([0-9.]*\) ms.*/\1/p'; }
time_it() { # LABEL ARGS...: prints the line, sets last to the median in ms
	local label=$1
	shift
	local out
	out=$("$tmp/startup" -n "$runs" "$@")
	printf '  %-44s %s\n' "$label" "$out"
	last=$(echo "$out" | median)
}

echo "start-up, $runs runs each, $(nproc) cores; medians in ms:"
time_it "floor: exec to tools/list reply" -- "$tmp/floor"
floor=$last
# Cold: every run starts with an empty cache.
cold_cmd=$(printf 'rm -rf %q; exec %q serve --workspace %q' "$XDG_CACHE_HOME" "$tmp/darkroom" "$ws")
time_it "darkroom serve, cold cache" -- sh -c "$cold_cmd"
cold=$last
# Fill the cache: the snapshot and verdict serve answers from, and each verb's focus.
"$tmp/darkroom" get-state bench --workspace "$ws" >/dev/null
"$tmp/darkroom" log bench --workspace "$ws" >/dev/null
time_it "darkroom serve, warm cache" -- "$tmp/darkroom" serve --workspace "$ws"
warm=$last
time_it "darkroom get-state IMG (exec to exit)" -exit -- "$tmp/darkroom" get-state bench --workspace "$ws"
getstate=$last
time_it "darkroom log IMG (exec to exit)" -exit -- "$tmp/darkroom" log bench --workspace "$ws"
logcall=$last

echo
echo "ratios darkroom/floor (medians):"
for pair in "serve, cold cache:$cold" "serve, warm cache:$warm" "get-state:$getstate" "log:$logcall"; do
	awk -v l="${pair%%:*}" -v d="${pair##*:}" -v f="$floor" 'BEGIN {printf "  %-44s %6.1fx\n", l, d/f}'
done
if [[ -x /usr/bin/time ]]; then
	/usr/bin/time -f '%M' -o "$tmp/rss" "$tmp/startup" -n 1 -- "$tmp/darkroom" serve --workspace "$ws" >/dev/null
	echo "  peak RSS of one warm serve (with the timer): $(($(cat "$tmp/rss") / 1024)) MB"
fi
