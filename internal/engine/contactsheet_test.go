package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func TestContactSheetLayout(t *testing.T) {
	src := opPhoto(t, "coffee") // 600x400: panels of 64x43
	panels := []Panel{
		{Label: "original"},
		{Label: "exposure +1", Edits: []Edit{opEdit("exposure", Args{"ev": 1.0})}},
		{Label: "rotate 90", Edits: []Edit{opEdit("rotate", Args{"angle": 90.0, "auto_crop": false})}},
		{Label: "crop", Edits: []Edit{opSample(t, "crop")}},
		{Label: ""},
	}
	const cell = 64
	sheet, err := ContactSheet(src, panels, cell)
	if err != nil {
		t.Fatal(err)
	}
	// 64 px cells: 2 px padding, labels of two 13 px lines plus 4 px.
	tileW, tileH := 64+4, 43+30+4
	if sheet.W%tileW != 0 || sheet.H%tileH != 0 {
		t.Fatalf("sheet %dx%d is not a grid of %dx%d tiles", sheet.W, sheet.H, tileW, tileH)
	}
	cols, rows := sheet.W/tileW, sheet.H/tileH
	if cols*rows < len(panels) || cols*(rows-1) >= len(panels) {
		t.Errorf("%d x %d tiles for %d panels", cols, rows, len(panels))
	}
	base := Resize(src, 64, 43)
	for i, p := range panels {
		want := opRender(t, base, sheetSeed, p.Edits...)
		x0 := (i%cols)*tileW + 2 + (64-want.W)/2
		y0 := (i/cols)*tileH + 2 + (43-want.H)/2
		if want.W > 64 || want.H > 43 { // the quarter turn is shrunk to fit
			continue
		}
		for _, q := range [][2]int{{0, 0}, {want.W / 2, want.H / 2}, {want.W - 1, want.H - 1}} {
			si := 3 * ((y0+q[1])*sheet.W + x0 + q[0])
			wi := 3 * (q[1]*want.W + q[0])
			if diff := cmp.Diff(want.Pix[wi:wi+3], sheet.Pix[si:si+3]); diff != "" {
				t.Errorf("panel %q pixel %v (-want +got):\n%s", p.Label, q, diff)
			}
		}
		// The label band has text exactly when the label is not empty.
		lit := false
		ly0 := (i/cols)*tileH + 2 + 43
		for y := ly0; y < ly0+30; y++ {
			for x := (i % cols) * tileW; x < (i%cols+1)*tileW; x++ {
				if sheet.Pix[3*(y*sheet.W+x)] > 0.5 {
					lit = true
				}
			}
		}
		if lit != (p.Label != "") {
			t.Errorf("panel %q: text drawn %v", p.Label, lit)
		}
	}
}

func TestContactSheetErrors(t *testing.T) {
	src := opPhoto(t, "chelsea")
	many := make([]Panel, 1000)
	tests := []struct {
		name   string
		panels []Panel
		cell   int
		code   string
	}{
		{"no panels", nil, 128, darkroom.InvalidInput},
		{"cell too small", []Panel{{Label: "a"}}, 8, darkroom.InvalidInput},
		{"cell too large", []Panel{{Label: "a"}}, 5000, darkroom.InvalidInput},
		{"sheet too large", many, 512, darkroom.LimitExceeded},
		{"bad edit", []Panel{{Label: "broken", Edits: []Edit{opEdit("lomo", Args{})}}}, 64, darkroom.InvalidInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ContactSheet(src, tc.panels, tc.cell)
			if got := darkroom.Code(err); err == nil || got != tc.code {
				t.Fatalf("error %v (code %s), want code %s", err, got, tc.code)
			}
			if tc.name == "bad edit" && !strings.Contains(err.Error(), `"broken"`) {
				t.Errorf("error %q does not name the panel", err)
			}
		})
	}
}

func TestWrapLabel(t *testing.T) {
	measure := func(s string) int { return 7 * len(s) } // basicfont's advance
	tests := []struct {
		label string
		width int
		want  []string
	}{
		{"exposure +1", 100, []string{"exposure +1"}},
		{"white_balance temperature=1500 tint=0.2", 140, []string{"white_balance", "temperature=1500..."}},
		{"white_balance temperature=1500", 140, []string{"white_balance", "temperature=1500"}},
		{"curve points=[[0,0],[0.25,0.18],[0.75,0.85],[1,1]]", 70, []string{"curve", "points=..."}},
		{"abcdefghijklmnop", 70, []string{"abcdefghij", "klmnop"}},
		{"café 10°", 100, []string{"caf? 10?"}},
		{"", 100, nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, wrapLabel(tc.label, tc.width, measure)); diff != "" {
			t.Errorf("wrapLabel(%q, %d) (-want +got):\n%s", tc.label, tc.width, diff)
		}
	}
}
