package prompt

import (
	"encoding/json"
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
		r := p.Parse(line, Options{Width: 640, Height: 480})
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
