package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

type ociDescriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Platform  *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

type ociImageConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       struct {
		User         string              `json:"User"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		Env          []string            `json:"Env"`
		WorkingDir   string              `json:"WorkingDir"`
		Volumes      map[string]struct{} `json:"Volumes"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
		Labels       map[string]string   `json:"Labels"`
	} `json:"config"`
}

func readBlob(t *testing.T, layout, digest string, v any) {
	t.Helper()
	algo, hex, _ := strings.Cut(digest, ":")
	b, err := os.ReadFile(filepath.Join(layout, "blobs", algo, hex))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", digest, err)
	}
}

// findManifest walks the layout's index (and nested indexes) to the image manifest
// of this machine's platform.
func findManifest(t *testing.T, layout string, descs []ociDescriptor) (ociDescriptor, bool) {
	for _, d := range descs {
		switch d.MediaType {
		case "application/vnd.oci.image.index.v1+json":
			var idx struct{ Manifests []ociDescriptor }
			readBlob(t, layout, d.Digest, &idx)
			if m, ok := findManifest(t, layout, idx.Manifests); ok {
				return m, true
			}
		case "application/vnd.oci.image.manifest.v1+json":
			if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == runtime.GOARCH {
				return d, true
			}
		}
	}
	return ociDescriptor{}, false
}

// TestOCIImage unpacks the container image `make release-snapshot` (or `make image`)
// writes as an OCI layout, checks what docker or podman would run (a non-root user,
// the darkroom entrypoint, the HTTP command behind authentication, /workspace as the
// workspace volume, the OCI labels) and runs the entrypoint binary as the image
// would: `version`, then a stdio session that lists the tools, whose serverInfo.version
// is the version the release stamped. Set DARKROOM_OCI_LAYOUT to the layout (CI does,
// after building it).
func TestOCIImage(t *testing.T) {
	layout := os.Getenv("DARKROOM_OCI_LAYOUT")
	if layout == "" {
		t.Skip("DARKROOM_OCI_LAYOUT is not set (make release-snapshot writes dist/oci)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the image is linux")
	}
	var index struct{ Manifests []ociDescriptor }
	b, err := os.ReadFile(filepath.Join(layout, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	desc, ok := findManifest(t, layout, index.Manifests)
	if !ok {
		t.Fatalf("no linux/%s image in %s", runtime.GOARCH, layout)
	}
	var manifest struct {
		Config ociDescriptor
		Layers []ociDescriptor
	}
	readBlob(t, layout, desc.Digest, &manifest)
	var cfg ociImageConfig
	readBlob(t, layout, manifest.Config.Digest, &cfg)
	c := cfg.Config
	if c.User == "" || c.User == "0" || strings.HasPrefix(c.User, "0:") || c.User == "root" {
		t.Errorf("User %q: the image must not run as root", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"darkroom"}) {
		t.Errorf("Entrypoint %q, want [darkroom]", c.Entrypoint)
	}
	if !slices.Equal(c.Cmd, []string{"serve", "--http", "0.0.0.0:8080"}) {
		t.Errorf("Cmd %q, want serve --http 0.0.0.0:8080", c.Cmd)
	}
	env := map[string]string{}
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if env["DARKROOM_WORKSPACE"] != "/workspace" || env["DARKROOM_TOKENS"] == "" {
		t.Errorf("Env %q: want DARKROOM_WORKSPACE=/workspace and a DARKROOM_TOKENS file (0.0.0.0 is served only with tokens)", c.Env)
	}
	if _, ok := c.Volumes["/workspace"]; !ok {
		t.Errorf("Volumes %v: want /workspace", c.Volumes)
	}
	version := c.Labels["org.opencontainers.image.version"]
	for _, l := range []string{"org.opencontainers.image.source", "org.opencontainers.image.version", "org.opencontainers.image.licenses"} {
		if c.Labels[l] == "" {
			t.Errorf("label %s is missing", l)
		}
	}

	// Unpack the layers as a container runtime would, and find the entrypoint on the
	// image's PATH.
	root := t.TempDir()
	owners := map[string]int{}
	for _, l := range manifest.Layers {
		algo, hex, _ := strings.Cut(l.Digest, ":")
		f, err := os.Open(filepath.Join(layout, "blobs", algo, hex))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			owners[strings.TrimSuffix(h.Name, "/")] = h.Uid
			p := filepath.Join(root, filepath.FromSlash(h.Name))
			switch h.Typeflag {
			case tar.TypeDir:
				if err := os.MkdirAll(p, 0o755); err != nil {
					t.Fatal(err)
				}
			case tar.TypeReg:
				w, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.Copy(w, tr); err != nil {
					t.Fatal(err)
				}
				w.Close()
			}
		}
		f.Close()
	}
	if uid := fmt.Sprint(owners["workspace"]); !strings.HasPrefix(c.User, uid+":") && c.User != uid {
		t.Errorf("/workspace belongs to uid %s, not to the image's user %s: the server could not write it", uid, c.User)
	}
	var bin string
	for _, dir := range filepath.SplitList(env["PATH"]) {
		if p := filepath.Join(root, dir, c.Entrypoint[0]); fileExists(p) {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Fatalf("entrypoint %s is not on the image's PATH %s", c.Entrypoint[0], env["PATH"])
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary needs a dynamic loader: on an empty base it cannot start (build with CGO_ENABLED=0)")
		}
	}
	ef.Close()

	ws := t.TempDir()
	run := func(stdin string, args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"DARKROOM_WORKSPACE=" + ws, "XDG_CACHE_HOME=" + filepath.Join(ws, ".cache"), "HOME=" + ws}
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("darkroom %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	if out := run("", "version"); !strings.HasPrefix(out, "darkroom "+version+"\n") {
		t.Errorf("version printed %q, want darkroom %s (the image's version label)", out, version)
	}
	session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image-test","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	replies := map[float64]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(runWithTimeout(t, bin, ws, session)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg map[string]any
		if json.Unmarshal(sc.Bytes(), &msg) == nil {
			if id, ok := msg["id"].(float64); ok {
				replies[id] = msg
			}
		}
	}
	init, _ := replies[1]["result"].(map[string]any)
	info, _ := init["serverInfo"].(map[string]any)
	if info["version"] != version {
		t.Errorf("serverInfo %v, want version %s", info, version)
	}
	list, _ := replies[2]["result"].(map[string]any)
	tools, _ := list["tools"].([]any)
	if len(tools) < 30 {
		t.Errorf("tools/list gave %d tools: %v", len(tools), replies[2])
	}
}

// runWithTimeout runs the image's binary as `serve` over stdio with a session on
// stdin, and returns its stdout once it exits (stdin's end ends the session).
func runWithTimeout(t *testing.T, bin, ws, session string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{"DARKROOM_WORKSPACE=" + ws, "XDG_CACHE_HOME=" + filepath.Join(ws, ".cache"), "HOME=" + ws}
	cmd.Stdin = strings.NewReader(session)
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("serve did not finish its session\n%s", out.String())
	}
	return out.String()
}
