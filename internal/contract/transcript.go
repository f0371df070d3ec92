package contract

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// measuredMS is a masked measured time in a golden ("ms", "elapsed_ms",
// "retry_after_ms": <ms>), escaped or not.
var measuredMS = regexp.MustCompile(`(\\?"(?:elapsed_|retry_after_)?ms\\?":\s*)<ms>`)

// TranscriptResult is the structuredContent of one tools/call reply in a transcript.
type TranscriptResult struct {
	Source string // name:line of the reply
	Tool   string
	Result json.RawMessage // structuredContent
}

// Transcript returns the structuredContent of each tools/call reply in text, in
// order, as the testscripts' mcp command writes a session: "--> request" on one
// line, "<-- reply" on one line or pretty-printed up to the line that closes it at
// the margin. Lines of any other kind are passed over, so text may be a whole
// archive. TestAgreement judges these results against the contract; the contract
// differ (internal/compat) checks them against the old contract.
func Transcript(name, text string) []TranscriptResult {
	var out []TranscriptResult
	calls := map[string]string{} // request id -> tool
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "--> "):
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			// A request without an id is a notification: nothing answers it.
			if json.Unmarshal([]byte(line[4:]), &req) == nil && req.Method == "tools/call" && req.ID != nil {
				calls[string(req.ID)] = req.Params.Name
			}
		case strings.HasPrefix(line, "<-- "):
			start := i
			// A measured time is masked as <ms> in a golden (it differs on every run);
			// read it as 0 so the reply is JSON again.
			unmask := func(b string) string { return measuredMS.ReplaceAllString(b, "${1}0") }
			body := unmask(line[4:])
			if !json.Valid([]byte(body)) {
				var b strings.Builder
				b.WriteString(body)
				for i+1 < len(lines) {
					i++
					b.WriteString("\n" + lines[i])
					if lines[i] == "}" {
						break
					}
				}
				body = unmask(b.String())
			}
			var reply struct {
				ID     json.RawMessage `json:"id"`
				Result struct {
					StructuredContent json.RawMessage `json:"structuredContent"`
				} `json:"result"`
			}
			if json.Unmarshal([]byte(body), &reply) != nil || reply.Result.StructuredContent == nil {
				continue
			}
			if tool, ok := calls[string(reply.ID)]; ok {
				out = append(out, TranscriptResult{Source: fmt.Sprintf("%s:%d", name, start+1), Tool: tool, Result: reply.Result.StructuredContent})
			}
		}
	}
	return out
}
