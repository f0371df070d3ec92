# One target per habit. `make ci` is what CI runs.
GO ?= go
PHOTO ?= samples/coffee.png

.PHONY: build test golden docs vet lint bench ci release-contract release-snapshot release-check image

build:
	$(GO) build -o bin/darkroom ./cmd/darkroom

# The README's test command.
test:
	$(GO) test ./...

# Rewrite the golden transcripts (testscripts/) and the engine's golden images.
golden:
	DARKROOM_UPDATE=1 $(GO) test ./cmd/darkroom -run TestScripts
	DARKROOM_UPDATE=1 $(GO) test ./internal/engine -run Golden

# Regenerate the reference pages, the README's tool table and the contact sheet.
docs:
	$(GO) run ./cmd/darkroom docs
	$(GO) run ./cmd/darkroom contact-sheet $(PHOTO) docs/contact-sheet.jpg

vet lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: the files above need formatting'; exit 1; }
	@test -z "$$($(GO) tool -modfile=tools/go.mod goimports -local github.com/darkroom-mcp/darkroom -l $$(git ls-files '*.go'))" || { $(GO) tool -modfile=tools/go.mod goimports -local github.com/darkroom-mcp/darkroom -l $$(git ls-files '*.go'); echo 'goimports: the files above put the standard library, other modules and darkroom in other groups than goimports -local github.com/darkroom-mcp/darkroom'; exit 1; }
	$(GO) vet ./...
	$(GO) tool cue vet -c=false ./contracts
	@for f in vocabulary/*.yaml; do $(GO) tool cue vet -c -d '#Manifest' ./contracts "$$f" || exit 1; done
	@test -z "$$($(GO) tool cue fmt --check ./contracts 2>&1)" || { echo 'cue fmt: contracts need formatting (go tool cue fmt ./contracts)'; exit 1; }

# Go benchmarks, the side-by-side comparison with the peers that are installed,
# start-up against a minimal MCP server, and augmentation throughput beside OpenCV
# and ImageMagick.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	scripts/bench-peers.sh
	scripts/bench-startup.sh
	scripts/bench-augment.sh

# Snapshot the contract as released (release/contract/): its CUE module, which
# `darkroom contract diff --snapshot` compares every later change with, and the
# exported JSON for people. Run it when a contract_version is released.
release-contract:
	rm -rf release/contract
	mkdir -p release/contract/cue.mod release/contract/contracts
	cp cue.mod/module.cue release/contract/cue.mod/
	cp contracts/*.cue release/contract/contracts/
	$(GO) run ./cmd/darkroom contract export > release/contract/contract.json.tmp
	mv release/contract/contract.json.tmp release/contract/contract.json

ci:
	bash .ci/run

# The release tools come from the Go module proxy through tools/go.mod (goreleaser,
# cyclonedx-gomod for the SBOMs, go-containerregistry for the image), so the main
# module's dependency graph does not carry them.
GORELEASER = bin/goreleaser

$(GORELEASER): tools/go.mod tools/go.sum
	$(GO) -C tools build -o ../bin/goreleaser github.com/goreleaser/goreleaser/v2

# Everything a release builds, offline and unpublished: archives for 6 targets with
# README and licences, checksums, a CycloneDX SBOM per binary, the Homebrew formula
# (dist/homebrew/) and the OCI image (dist/oci). Set SNAPSHOT_FLAGS="--single-target"
# for the host's target only.
release-snapshot: $(GORELEASER)
	$(GORELEASER) release --snapshot --clean $(SNAPSHOT_FLAGS)
	$(MAKE) image

# The OCI image layout of the linux binaries goreleaser built (dist/oci).
image:
	$(GO) -C tools run ./ociimage -dist ../dist -out ../dist/oci

# What CI runs (.ci/run): the configuration is valid, the host's linux target builds
# as a release would (ldflags, static), and its image is written and tested.
release-check: $(GORELEASER)
	$(GORELEASER) check
	GOOS=linux $(GORELEASER) build --snapshot --clean --single-target
	$(MAKE) image
	DARKROOM_OCI_LAYOUT=$(CURDIR)/dist/oci $(GO) test ./cmd/darkroom -run TestOCIImage -count=1
