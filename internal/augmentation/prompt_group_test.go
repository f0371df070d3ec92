package augmentation

import (
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/prompt"
)

// TestPromptPipelineKeepsGroups: albumentations code in a prompt with a OneOf inside
// a SomeOf becomes steps that share one group each (the OneOf's p, the SomeOf's n),
// nested as written, and the augmenter accepts the pipeline; a step written outside
// the containers has no group.
func TestPromptPipelineKeepsGroups(t *testing.T) {
	s := testEditor(t)
	r := s.PromptParser().Parse("A.Compose([A.HorizontalFlip(), A.SomeOf([A.ToGray(), A.OneOf([A.Blur(), A.GaussNoise()], p=0.3)], n=2)])", prompt.Options{Width: 640, Height: 480})
	p := PromptPipeline(s.Vocab, r)
	if len(p) != 4 {
		t.Fatalf("pipeline %+v, want 4 steps", p)
	}
	if p[0].Group != nil {
		t.Errorf("hflip is in group %+v, want none", p[0].Group)
	}
	some, one := p[1].Group, p[2].Group
	if some == nil || some.Kind != "some_of" || some.N != 2 || some.P != 1 || some.Parent != nil {
		t.Errorf("to_gray's group %+v, want some_of n=2 p=1 at the top", some)
	}
	if one == nil || one.Kind != "one_of" || one.P != 0.3 || one.Parent != some || p[3].Group != one {
		t.Errorf("blur's group %+v and noise's %+v, want one shared one_of p=0.3 inside the some_of", one, p[3].Group)
	}
	if err := s.Augmenter().Check(p); err != nil {
		t.Errorf("augmenter refuses the prompt's pipeline: %v", err)
	}
}
