package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/version"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

const demoSynopsis = `demo [--dir DIR] [--photo FILE]

Runs a real editing session on the embedded sample photo (or on FILE, for
instance samples/coffee.dng, a DNG synthesized from it): the server starts
in-process with its workspace in DIR/workspace, the MCP SDK's client connects to it
and offers DIR as its root, and the session lists the tools and the vocabulary,
ingests the photo, applies primitives (one masked), branches for an alternative
look, diffs, previews both, compares them side by side and exports. It prints every
call with its result and time. DIR/workspace is replaced on every run; afterwards
the CLI continues the session: darkroom log coffee --workspace DIR/workspace`

// demo is an editing session through the SDK's MCP client, connected to the real
// server over an in-memory transport: everything an agent does, on the sample photo.
func (m *Main) demo(ctx context.Context, args []string) error {
	start := time.Now()
	fs := m.flags("demo", demoSynopsis)
	dir := fs.String("dir", "darkroom-demo", "where the sample photo and the demo's workspace go")
	photoFile := fs.String("photo", "", "edit this photo instead of the embedded sample (a copy goes into DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("demo takes no arguments, got %q", fs.Args())
	}
	absDir, err := filepath.Abs(*dir)
	if err != nil {
		return darkroom.Wrap(darkroom.InvalidInput, err, "demo: --dir %s", *dir)
	}
	wsDir := filepath.Join(absDir, "workspace")
	if err := resetDemoWorkspace(wsDir); err != nil {
		return err
	}
	if err := os.MkdirAll(absDir, 0o755); err != nil {
		return darkroom.Wrap(darkroom.PermissionError, err, "demo: --dir %s", *dir)
	}
	photo, photoData := filepath.Join(absDir, "coffee.png"), darkroom.SamplePhoto
	if *photoFile != "" {
		if photoData, err = os.ReadFile(*photoFile); err != nil {
			return darkroom.Wrap(darkroom.NotFound, err, "demo: --photo %s", filepath.Base(*photoFile))
		}
		photo = filepath.Join(absDir, "photo"+strings.ToLower(filepath.Ext(*photoFile)))
	}
	if err := workspace.WriteFile(photo, photoData); err != nil {
		return darkroom.Wrap(darkroom.PermissionError, err, "demo: write the sample photo")
	}
	// No --allow-root: the photo is readable because the client offers DIR as a root.
	ws, err := workspace.Open(wsDir, nil)
	if err != nil {
		return err
	}
	s, err := m.newServer(nil, ws)
	if err != nil {
		return err
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP(version.String()).Connect(ctx, st, nil)
	if err != nil {
		return fmt.Errorf("demo: start server: %w", err)
	}
	defer ss.Close()
	var progress atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "darkroom-demo", Version: s.Contract.Version}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	client.AddRoots(&mcp.Root{Name: "demo", URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(absDir)}).String()})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return fmt.Errorf("demo: connect client: %w", err)
	}
	defer cs.Close()
	d := &demoSession{w: m.Stdout, cs: cs, cwd: mustGetwd()}

	init := cs.InitializeResult()
	fmt.Fprintf(d.w, "darkroom demo: an MCP client (the go-sdk's) drives the real server in-process.\n")
	fmt.Fprintf(d.w, "Connected to %s %s, protocol %s; the client offers %s as its root.\n\n",
		init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion, d.rel(absDir))
	if err := d.overview(ctx); err != nil {
		return err
	}

	fmt.Fprintf(d.w, "\nEditing session (tool, arguments, time; then the tool's own summary):\n")
	img := "coffee"
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"ingest", map[string]any{"path": photo, "image_id": img}},
		{"apply_primitive", map[string]any{"image_id": img, "primitive_name": "exposure", "value": 0.3}},
		{"apply_primitive", map[string]any{"image_id": img, "primitive_name": "white_balance", "value": map[string]any{"temperature": 450, "tint": 0.05}}},
		{"apply_primitive", map[string]any{"image_id": img, "primitive_name": "clarity", "value": 0.5, "mask_spec": map[string]any{"name": "center_spot"}}},
		{"apply_primitive", map[string]any{"image_id": img, "primitive_name": "vignette", "value": map[string]any{"amount": -0.3}}},
		{"tag", map[string]any{"image_id": img, "name": "warm"}},
		{"branch", map[string]any{"image_id": img, "name": "moody"}},
		{"apply_primitive", map[string]any{"image_id": img, "primitive_name": "film_noir", "strength": 0.8}},
		{"apply_primitive", map[string]any{"image_id": img, "primitive_name": "vignette", "value": map[string]any{"amount": -0.6}}},
		{"diff", map[string]any{"image_id": img, "hash_a": "warm", "hash_b": "moody"}},
		{"render_preview", map[string]any{"image_id": img, "ref_or_hash": "main", "size": 768}},
		{"render_preview", map[string]any{"image_id": img, "ref_or_hash": "moody", "size": 768}},
		{"compare", map[string]any{"image_id": img, "hash_a": "main", "hash_b": "moody", "size": 512}},
		{"export_final", map[string]any{"image_id": img, "ref_or_hash": "moody", "format": "jpeg"}},
		{"log", map[string]any{"image_id": img, "limit": 20}},
	}
	var images []string
	for _, step := range steps {
		data, err := d.call(ctx, step.tool, step.args)
		if err != nil {
			return err
		}
		switch step.tool {
		case "diff":
			d.showDiff(data)
		case "render_preview", "compare", "export_final":
			var r struct {
				Path   string `json:"path"`
				Width  int    `json:"width"`
				Height int    `json:"height"`
			}
			if err := json.Unmarshal(data, &r); err != nil {
				return fmt.Errorf("demo: %s: %w", step.tool, err)
			}
			p := r.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(wsDir, filepath.FromSlash(p))
			}
			label := fmt.Sprintf("%s %v", step.tool, step.args["ref_or_hash"])
			if step.tool == "compare" {
				label = "compare main | moody"
			}
			images = append(images, fmt.Sprintf("%-24s %s (%dx%d)", label, d.rel(p), r.Width, r.Height))
		}
	}
	if n := progress.Load(); n > 0 {
		fmt.Fprintf(d.w, "\n(export_final sent %d progress notifications for the request's progress token)\n", n)
	}

	fmt.Fprintf(d.w, "\nImages:\n")
	for _, line := range images {
		fmt.Fprintf(d.w, "  %s\n", line)
	}
	fmt.Fprintf(d.w, "\nThe workspace (history, previews, exports) is %s; continue from the command line:\n", d.rel(wsDir))
	fmt.Fprintf(d.w, "  darkroom log %s --workspace %s\n", img, d.rel(wsDir))
	fmt.Fprintf(d.w, "  darkroom diff %s warm moody --workspace %s\n", img, d.rel(wsDir))
	fmt.Fprintf(d.w, "\n%d tool calls in %s; the demo's wall time was %s.\n", d.calls, d.busy.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	return nil
}

// resetDemoWorkspace removes the workspace of an earlier demo run, and nothing that
// is not a darkroom workspace.
func resetDemoWorkspace(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return darkroom.Wrap(darkroom.PermissionError, err, "demo: workspace %s", dir)
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, "images")); err != nil {
			return darkroom.Errorf(darkroom.StateError, "demo: %s is not empty and not a darkroom workspace; give another --dir", dir)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return darkroom.Wrap(darkroom.PermissionError, err, "demo: remove the earlier workspace %s", dir)
	}
	return nil
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// demoSession prints the calls of the demo's client.
type demoSession struct {
	w     io.Writer
	cs    *mcp.ClientSession
	cwd   string
	calls int
	busy  time.Duration
}

// rel shortens a path under the working directory.
func (d *demoSession) rel(p string) string {
	if d.cwd != "" {
		if r, err := filepath.Rel(d.cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

// overview lists the tools and the vocabulary, as an agent starts.
func (d *demoSession) overview(ctx context.Context) error {
	tools, err := d.cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: tools/list: %w", err)
	}
	names := make([]string, len(tools.Tools))
	for i, t := range tools.Tools {
		names[i] = t.Name
	}
	fmt.Fprintf(d.w, "Tools (%d):\n", len(names))
	wrap(d.w, names, "  ", 88)

	var vocab struct {
		Count   int `json:"count"`
		Entries []struct {
			Name  string `json:"name"`
			Layer string `json:"layer"`
		} `json:"entries"`
	}
	raw, err := d.quiet(ctx, "list_vocabulary", nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &vocab); err != nil {
		return fmt.Errorf("demo: list_vocabulary: %w", err)
	}
	byLayer := map[string][]string{}
	for _, e := range vocab.Entries {
		byLayer[e.Layer] = append(byLayer[e.Layer], e.Name)
	}
	layers := make([]string, 0, len(byLayer))
	for l := range byLayer {
		layers = append(layers, l)
	}
	sort.Strings(layers)
	fmt.Fprintf(d.w, "\nVocabulary (%d entries):\n", vocab.Count)
	for _, l := range layers {
		fmt.Fprintf(d.w, "  %s (%d):\n", l, len(byLayer[l]))
		wrap(d.w, byLayer[l], "    ", 88)
	}
	var masks struct {
		Masks []struct {
			Name string `json:"name"`
		} `json:"masks"`
	}
	if raw, err = d.quiet(ctx, "list_masks_vocabulary", nil); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &masks); err != nil {
		return fmt.Errorf("demo: list_masks_vocabulary: %w", err)
	}
	mnames := make([]string, len(masks.Masks))
	for i, mk := range masks.Masks {
		mnames[i] = mk.Name
	}
	fmt.Fprintf(d.w, "  named masks (%d):\n", len(mnames))
	wrap(d.w, mnames, "    ", 88)
	return nil
}

// wrap prints words separated by commas in lines of at most width characters.
func wrap(w io.Writer, words []string, indent string, width int) {
	line := indent
	for i, word := range words {
		if i < len(words)-1 {
			word += ","
		}
		if len(line)+len(word)+1 > width && line != indent {
			fmt.Fprintln(w, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	if line != indent {
		fmt.Fprintln(w, line)
	}
}

// quiet calls a tool without printing it and returns its data.
func (d *demoSession) quiet(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := d.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("demo: %s: %w", name, err)
	}
	return resultData(name, res)
}

// call calls a tool, prints the call, its time and summary, and returns its data.
func (d *demoSession) call(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if name == "export_final" {
		params.SetProgressToken("demo-export")
	}
	t0 := time.Now()
	res, err := d.cs.CallTool(ctx, params)
	elapsed := time.Since(t0)
	d.calls++
	d.busy += elapsed
	if err != nil {
		return nil, fmt.Errorf("demo: %s: %w", name, err)
	}
	fmt.Fprintf(d.w, "  %-16s %-58s %7s\n", name, d.showArgs(args), elapsed.Round(100*time.Microsecond))
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			fmt.Fprintf(d.w, "      %s\n", t.Text)
		}
	}
	for _, c := range res.Content[1:] {
		if img, ok := c.(*mcp.ImageContent); ok {
			fmt.Fprintf(d.w, "      + %s image content, %d bytes (what the agent sees)\n", img.MIMEType, len(img.Data))
		}
	}
	return resultData(name, res)
}

// showArgs prints a call's arguments without image_id, shortened.
func (d *demoSession) showArgs(args map[string]any) string {
	rest := map[string]any{}
	for k, v := range args {
		if k == "image_id" && len(args) > 1 {
			continue
		}
		if s, ok := v.(string); ok && filepath.IsAbs(s) {
			v = d.rel(s)
		}
		rest[k] = v
	}
	b, _ := json.Marshal(rest)
	s := string(b)
	if len(s) > 58 {
		s = s[:55] + "..."
	}
	return s
}

// showDiff prints what a diff found, one entry a line.
func (d *demoSession) showDiff(data json.RawMessage) {
	type entry struct {
		Primitive string             `json:"primitive"`
		Values    map[string]float64 `json:"values"`
		Strength  float64            `json:"strength"`
	}
	var df struct {
		Added   []entry `json:"added"`
		Removed []entry `json:"removed"`
		Changed []struct {
			Old entry `json:"old"`
			New entry `json:"new"`
		} `json:"changed"`
	}
	if json.Unmarshal(data, &df) != nil {
		return
	}
	show := func(e entry) string {
		b, _ := json.Marshal(e.Values)
		return fmt.Sprintf("%s %s strength %g", e.Primitive, b, e.Strength)
	}
	for _, e := range df.Added {
		fmt.Fprintf(d.w, "        + %s\n", show(e))
	}
	for _, e := range df.Removed {
		fmt.Fprintf(d.w, "        - %s\n", show(e))
	}
	for _, c := range df.Changed {
		fmt.Fprintf(d.w, "        ~ %s  →  %s\n", show(c.Old), show(c.New))
	}
}

// resultData decodes the data of a result envelope; a failed call is an error.
func resultData(name string, res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.IsError {
		msg := ""
		if len(res.Content) > 0 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				msg = t.Text
			}
		}
		return nil, fmt.Errorf("demo: %s: %s", name, msg)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("demo: %s: %w", name, err)
	}
	return env.Data, nil
}
