package prompt

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	p := testParser(t)
	for _, line := range strings.Split(os.Getenv("TRY"), "\n") {
		if line == "" {
			continue
		}
		w, h := 640, 480
		if _, err := fmt.Sscanf(os.Getenv("TRY_SIZE"), "%dx%d", &w, &h); err != nil {
			w, h = 640, 480
		}
		if os.Getenv("TRY_SIZE") == "none" {
			w, h = 0, 0 // as a corpus case with no size
		}
		r := p.Parse(line, Options{Width: w, Height: h})
		g := got(r)
		g.Size = nil
		for _, e := range r.Errors {
			if e.Severity == "warning" && e.Phrase == "" {
				g.Errors = append(g.Errors, "W:"+e.Message)
			}
		}
		b, _ := json.Marshal(g)
		t.Log(string(b))
	}
}
