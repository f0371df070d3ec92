package server

import (
	"fmt"

	"github.com/darkroom-mcp/darkroom/internal/prompt"
)

// promptVariants warns when a prompt asks for a number of variants ("5 variants")
// other than the request's count: the number is read (it is no angle or radius) but
// count decides how many are drawn, so the difference is said, never left silent.
func promptVariants(s *Server, text string, count int) []string {
	if text == "" {
		return nil
	}
	v := s.aug.PromptParser().Parse(text, prompt.Options{}).Variants
	if v == 0 || v == count {
		return nil
	}
	return []string{fmt.Sprintf("the prompt asks for %d variants but count is %d: %d drawn (set count to %d for %d)", v, count, count, v, v)}
}
