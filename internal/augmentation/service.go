package augmentation

import (
	"sync"

	"github.com/darkroom-mcp/darkroom/internal/edit"
	"github.com/darkroom-mcp/darkroom/internal/prompt"
)

// Service runs augmentations over an editor's workspace: augment_image's sessions
// (Augment), augment_dataset's runs (AugmentDataset) and the prompts both read
// (PromptParser). It works on the editor's workspace, vocabulary and contract
// facts, and reads a workspace image through the editor (ResolveEdits), as a
// preview does.
type Service struct {
	*edit.Editor

	parserOnce sync.Once
	parser     *prompt.Parser
}

// New returns the augmentation service over an editor; the editor's Workspace may
// be set (or replaced) later, as the service reads it at each call.
func New(e *edit.Editor) *Service { return &Service{Editor: e} }
