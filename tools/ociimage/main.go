// Command ociimage writes darkroom's container image as an OCI image layout on disk,
// without a container daemon: one layer holding the static binary, an empty
// /workspace owned by the non-root user, and /tmp; no base image. With several
// -bin flags it writes one image per platform under one index.
//
//	go run ./ociimage -out ../dist/oci -version 0.3.0 -created 2026-11-27T00:00:00Z \
//	    -bin linux/amd64=../dist/darkroom_linux_amd64_v1/darkroom \
//	    -bin linux/arm64=../dist/darkroom_linux_arm64_v8.0/darkroom
//
// `crane push dist/oci ghcr.io/darkroom-mcp/darkroom:0.3.0` (or `skopeo copy
// oci:dist/oci docker://...`, `podman load`) publishes or loads it.
package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's user: not root, and the uid distroless calls nonroot.
const uid, gid = 65532, 65532

type bins map[string]string

func (b bins) String() string { return fmt.Sprint(map[string]string(b)) }
func (b bins) Set(v string) error {
	plat, path, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want OS/ARCH=PATH, got %q", v)
	}
	b[plat] = path
	return nil
}

func main() {
	binaries := bins{}
	flag.Var(binaries, "bin", "OS/ARCH=PATH of a static darkroom binary (repeatable)")
	out := flag.String("out", "", "the OCI layout directory to write (replaced)")
	version := flag.String("version", "", "the version (org.opencontainers.image.version)")
	revision := flag.String("revision", "", "the commit (org.opencontainers.image.revision)")
	created := flag.String("created", "", "RFC 3339 creation time (the commit's, so builds are reproducible)")
	licenses := flag.String("licenses", "NOASSERTION", "SPDX licence expression (org.opencontainers.image.licenses)")
	source := flag.String("source", "https://github.com/darkroom-mcp/darkroom", "the source repository")
	dist := flag.String("dist", "", "read the linux binaries, the version, commit and date from a goreleaser dist directory (artifacts.json, metadata.json) instead")
	flag.Parse()
	if *dist != "" {
		if err := fromDist(*dist, binaries, version, revision, created); err != nil {
			log.Fatalf("-dist %s: %v", *dist, err)
		}
	}
	if *out == "" || len(binaries) == 0 || *version == "" {
		log.Fatal("usage: ociimage -out DIR -version V -bin OS/ARCH=PATH...")
	}
	when := time.Unix(0, 0).UTC()
	if *created != "" {
		t, err := time.Parse(time.RFC3339, *created)
		if err != nil {
			log.Fatalf("-created: %v", err)
		}
		when = t.UTC()
	}
	labels := map[string]string{
		"org.opencontainers.image.title":       "darkroom",
		"org.opencontainers.image.description": "MCP server to edit photos and augment images through a declared vocabulary",
		"org.opencontainers.image.source":      *source,
		"org.opencontainers.image.url":         *source,
		"org.opencontainers.image.version":     *version,
		"org.opencontainers.image.revision":    *revision,
		"org.opencontainers.image.licenses":    *licenses,
		"org.opencontainers.image.created":     when.Format(time.RFC3339),
		// The MCP registry matches an OCI package to its server.json by this label.
		"io.modelcontextprotocol.server.name": "io.github.darkroom-mcp/darkroom",
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for plat, path := range binaries {
		osName, arch, ok := strings.Cut(plat, "/")
		if !ok {
			log.Fatalf("-bin %s: want OS/ARCH", plat)
		}
		img, err := image(path, osName, arch, when, labels)
		if err != nil {
			log.Fatalf("%s: %v", plat, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}},
		})
	}
	if err := os.RemoveAll(*out); err != nil {
		log.Fatal(err)
	}
	if _, err := layout.Write(*out, idx); err != nil {
		log.Fatal(err)
	}
	d, _ := idx.Digest()
	fmt.Printf("wrote %s (%d platforms, index %s)\n", *out, len(binaries), d)
}

func image(binPath, osName, arch string, when time.Time, labels map[string]string) (v1.Image, error) {
	bin, err := os.ReadFile(binPath)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64, owner int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: owner, Gid: owner, ModTime: when, Format: tar.FormatPAX})
	}
	for _, d := range []struct {
		name  string
		mode  int64
		owner int
	}{{"usr/", 0o755, 0}, {"usr/local/", 0o755, 0}, {"usr/local/bin/", 0o755, 0}, {"tmp/", 0o1777, 0}, {"workspace/", 0o755, uid}} {
		if err := dir(d.name, d.mode, d.owner); err != nil {
			return nil, err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "usr/local/bin/darkroom", Mode: 0o755, Size: int64(len(bin)), ModTime: when, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layerBytes := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: when}, CreatedBy: "darkroom tools/ociimage", Comment: "the static darkroom binary"}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = osName, arch, v1.Time{Time: when}
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", uid, gid),
		WorkingDir: "/workspace",
		Entrypoint: []string{"darkroom"},
		// Over HTTP on every interface, which darkroom serves only with
		// authentication: DARKROOM_TOKENS names the token file in the volume
		// (`darkroom token add` writes it). `serve` alone speaks stdio (docker run -i).
		Cmd: []string{"serve", "--http", "0.0.0.0:8080"},
		Env: []string{
			"PATH=/usr/local/bin",
			"DARKROOM_WORKSPACE=/workspace",
			"DARKROOM_TOKENS=/workspace/tokens.json",
			"XDG_CACHE_HOME=/tmp/cache",
			"HOME=/workspace",
		},
		Volumes:      map[string]struct{}{"/workspace": {}},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Labels:       labels,
	}
	return mutate.ConfigFile(img, cf)
}

// fromDist reads what goreleaser built: every linux binary of artifacts.json, and
// the version, commit and commit date of metadata.json.
func fromDist(dist string, b bins, version, revision, created *string) error {
	var arts []struct {
		Type   string `json:"type"`
		Path   string `json:"path"`
		Goos   string `json:"goos"`
		Goarch string `json:"goarch"`
	}
	raw, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &arts); err != nil {
		return err
	}
	for _, a := range arts {
		if a.Type == "Binary" && a.Goos == "linux" {
			// Paths in artifacts.json are relative to the project root, dist's parent.
			p := a.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dist, "..", p)
			}
			b["linux/"+a.Goarch] = p
		}
	}
	var meta struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
		Date    string `json:"date"`
	}
	raw, err = os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return err
	}
	if *version == "" {
		*version = meta.Version
	}
	if *revision == "" {
		*revision = meta.Commit
	}
	if *created == "" {
		*created = meta.Date
	}
	if len(b) == 0 {
		return fmt.Errorf("no linux binary in artifacts.json")
	}
	return nil
}
