// Package augmentation runs augmentations over the workspace: augment_image's
// sessions (Service.Augment: one image, a recipe, a seed, count variants written
// under augment/<session_id>/ with metadata.json and config.json so the session can
// be reproduced) and augment_dataset's runs (Service.AugmentDataset: the glue
// between a recipe, internal/augment's Augmenter and internal/dataset's runner, with
// the labels moved alongside the pixels). Its one job is that service: what to
// read, what recipe to draw with, how much memory a call reserves before decoding,
// and what to write where.
//
// It does not draw variants itself (internal/augment does, through the engine), does
// not check paths (internal/workspace does), and does not parse prompts
// (internal/prompt does; PromptParser holds the one parser over the vocabulary). A
// Service embeds the editor (internal/edit) whose workspace, vocabulary and contract
// facts it uses, and through which it renders a workspace image at a version
// (ResolveEdits), as a preview does.
//
// The walks of augment_image and augment_dataset, room by room, are in
// docs/architecture.md.
package augmentation
