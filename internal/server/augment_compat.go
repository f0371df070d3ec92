package server

import (
	"encoding/json"
	"fmt"

	darkroom "github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/augment"
)

// albumentations-mcp's request shape, read into darkroom's. A client written to its
// augment_image schema sends image (base64), options.enable_vision_verification,
// options.enable_classification_check, options.vision_model,
// options.classifier_model and auth_context: each is taken as darkroom's counterpart
// or, where it cannot be honoured, accepted with a warning in the result.

// compat folds the albumentations-mcp fields into darkroom's, and returns the
// warnings for what is accepted but not honoured.
func (a *augmentArgs) compat() ([]string, error) {
	var warnings []string
	if a.Image != "" {
		if a.ImageB64 != "" && a.ImageB64 != a.Image {
			return nil, darkroom.FieldError("image", "give one of image and image_b64 (image is albumentations-mcp's name for image_b64)")
		}
		a.ImageB64 = a.Image
	}
	if a.ImagePath != "" {
		if a.Path != "" && a.Path != a.ImagePath {
			return nil, darkroom.FieldError("image_path", "give one of image_path and path (image_path is albumentations-mcp's name for path)")
		}
		a.Path = a.ImagePath
	}
	if a.SessionID != "" {
		if a.Path == "" && a.ImageB64 == "" && a.ImageID == "" {
			return nil, darkroom.FieldError("session_id", "darkroom has no albumentations-mcp load_image_for_processing session: give the image as image_path, image_b64 or image_id")
		}
		warnings = append(warnings, fmt.Sprintf("session_id %q is not used: it names albumentations-mcp's load_image_for_processing session; the image given is used", a.SessionID))
	}
	if a.OutputDir != "" {
		warnings = append(warnings, fmt.Sprintf("output_dir %q is not used: darkroom writes the variants under the workspace, in augment/<session_id>/ (see the result's links)", a.OutputDir))
	}
	if o := a.Options; o != nil {
		add := func(check string) {
			for _, v := range o.Verify {
				if v == check {
					return
				}
			}
			o.Verify = append(o.Verify, check)
		}
		if o.EnableVisionVerification != nil && *o.EnableVisionVerification {
			add("visual")
		}
		if o.EnableClassificationCheck != nil && *o.EnableClassificationCheck {
			add("label")
		}
		for _, m := range []struct{ field, model string }{{"vision_model", o.VisionModel}, {"classifier_model", o.ClassifierModel}} {
			if m.model != "" {
				warnings = append(warnings, fmt.Sprintf("options.%s %q is not used: darkroom asks the client's own model (MCP sampling) for verification", m.field, m.model))
			}
		}
	}
	if len(a.AuthContext) > 0 && string(a.AuthContext) != "null" {
		warnings = append(warnings, "auth_context is ignored: darkroom's permissions are its HTTP tokens and grants")
	}
	return warnings, nil
}

// pipelineArg reads the pipeline argument: darkroom's list of steps, or the object
// albumentations writes (returned raw, to be read at the image's size).
func pipelineArg(raw json.RawMessage) (augment.Pipeline, []byte, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	if augment.IsAlbumentations(raw) {
		return nil, raw, nil
	}
	var p augment.Pipeline
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, nil, darkroom.FieldError("pipeline", "not a list of steps: %v", err)
	}
	return p, nil, nil
}
