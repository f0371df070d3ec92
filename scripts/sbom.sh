#!/usr/bin/env bash
# goreleaser's sboms cmd (run in dist/): a CycloneDX SBOM of one built binary, read
# from the module information Go embedded in it, with cyclonedx-gomod from the
# Go module proxy (tools/go.mod).
set -euo pipefail
binary=$(realpath "$1")
document=$(realpath -m "$2")
cd "$(dirname "$0")/../tools"
exec go tool cyclonedx-gomod bin -json -output "$document" "$binary"
