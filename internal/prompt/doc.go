// Package prompt reads a natural-language augmentation prompt ("add blur and rotate 15
// degrees") into a pipeline of vocabulary entries with values, ranges and probabilities,
// in each entry's own units. It knows no MCP and renders nothing: it is what
// validate_prompt returns and what augment_image {prompt} runs. There is no language
// model and no list of transforms in Go: everything it recognizes comes from the loaded
// manifests (entry names, aliases, examples, parameter names, ranges and units), so a
// pack author extends it by writing a manifest. The only words in Go are English ones
// (words.go): how people say how much, how often, which way, and units.
//
// # API for the tools
//
//	p := prompt.New(voc)                                   // once per loaded vocabulary
//	r := p.Parse(text, prompt.Options{Strict: s, Width: w, Height: h})
//
// Result is validate_prompt's data: parsed_transforms (entry, phrase, parameters,
// ranges, pending, p, confidence), validation_errors (message, severity "error" or
// "warning", suggestion, entry, parameter), suggestions, ambiguities (phrase,
// interpretations, chosen), complexity_score, estimated_execution_time, plus valid (no
// error-severity issue) and preset (a preset the prompt names: "apply the segmentation
// preset"; run it with vocab.Vocabulary.Preset). Parse never fails and never clamps:
// what it cannot use is an Issue. augment_image should refuse a prompt whose Result is
// not Valid (invalid_input, with the issues as details), parse with the decoded image's
// Width and Height so pixel values convert, and sample each Range and P from its seed;
// Values are fixed. A parameter in neither keeps the entry's default.
//
// # Reading a prompt
//
// The text is lowered and cut into words, numbers, sizes (512x512) and separators. The
// phrases of the vocabulary (each entry's name with spaces, its aliases, the words of a
// CamelCase alias: "GaussianBlur" also reads "gaussian blur", and its example phrases
// that are one clause without numbers) are matched left to right, the longest at each
// position, before anything is split, so "motion blur" is motion_blur and not blur,
// and "brightness and contrast" or "salt and pepper" stay whole. The rest is cut into
// clauses at commas, semicolons, full stops and the words and, then, also, plus ("and"
// between the ends of a range does not cut). In a clause, each phrase owns the words up
// to the next phrase; words before the first belong to the first. A phrase that is a
// parameter name of the entry before it is that parameter ("color jitter brightness
// 0.2 contrast 0.1"). A clause with no phrase continues the transform before it when it
// names one of its parameters ("gaussian blur, radius 0.01"), names a preset, or is
// compared with every entry's example phrases (the entry whose example shares at least
// half of its words, unique, with confidence 0.8 x that share); otherwise it is a
// warning with the nearest phrases (edit distance) as suggestions.
//
// When two entries claim a phrase ("rotate 90": rotate and random_rotate_90; "mist":
// random_fog and dehaze), the one whose parameters take the units the clause gives
// wins and that is no ambiguity; otherwise the one whose name shares most words with
// the phrase, then the first by name, is chosen, the ambiguity is reported with both
// interpretations and the transform's confidence is 1/n. Options.Strict turns each such
// ambiguity into an error.
//
// # Values and units
//
// A number goes to the parameter it names ("radius 0.01", "clip limit 4", "8 holes"),
// else to the first parameter, in the manifest's order, that is still free and takes
// its unit. Conversions to the entry's units:
//   - degrees (deg, °) and kelvin (k) and stops (ev) are taken as they are;
//   - px becomes a fraction of the long edge (Options.Width, Height); a size WxH gives
//     width and height parameters fractions of the image's width and height, and an
//     entry that cuts margins (left, right, top, bottom) the margins of a centred crop
//     of that size ("crop 224x224");
//   - % is a hundredth for fraction, amount, weight, ratio and level units, a percentage
//     of the maximum for a level whose range reaches past 1 (image_compression's
//     quality), and a change of light for EV: +20% is log2(1.2) = 0.263 EV;
//   - a factor (1.5x) is a ratio.
//
// Without an image size a pixel value is not guessed: the transform carries it in
// Pending (parameter, pixels, of long_edge, width or height, margin) with a warning,
// and the caller parses again once it knows the size. A number whose unit no parameter
// takes, a value or either end of a range outside the parameter's declared range, and
// a fraction for an integer parameter are errors naming the entry, the parameter and
// the range ("rotate: angle: 200 is outside [-180, 180]"); the value is dropped, never
// clamped.
//
// Ranges: "between A and B", "from A to B", "A to B", "±A" and "up to A" (the
// albumentations limit: [-A, A]); the unit written once counts for both ends.
// Probabilities: "50% of the time", "30% chance", "p=0.3", "with probability 0.3",
// "half the time", and always 1, usually and mostly 0.8, often and frequently 0.75,
// sometimes, maybe and perhaps 0.5, occasionally 0.25, rarely and seldom 0.1; a p
// outside [0, 1] is an error. Directions: decrease, reduce, less, lower, left,
// counter-clockwise... make an unsigned number negative when the range allows it.
//
// Intensity words set the first free parameter (or every parameter the phrase names)
// to a fraction of the way from its default to the end of its range: the high end,
// or the low end when the words point down or when the default already is the high
// end (quality 100 for jpeg compression): barely, tiny, subtle 0.1; slight, a little,
// a bit, light, mild, gentle 0.25; medium, moderate, some 0.5; strong, heavy, a lot,
// intense, high 0.75; extreme, maximum, full 1; "very" pushes a weak word to 0.1 and a
// strong one to 1. An integer parameter is rounded. An entry named with no value and no
// intensity samples the same parameter from its default to the "slight" fraction
// (0.25) of the way to the end its words point at, or to both ends when they point
// nowhere and the default lies inside the range: "rotate" is [-45, 45] degrees, "add
// blur" radius [0, 0.0125].
//
// # Scores
//
// Confidence is 1 for a name or alias, 0.9 x that for an example phrase matched whole,
// 1/n for an ambiguity the values did not decide, 0.9 when they did. complexity_score
// counts what the pipeline asks of the sampler and the engine: 1 per transform, 1 per
// sampled range, 0.5 per transform that runs with p below 1. estimated_execution_time
// (Estimate) prices each transform from costs.json: nanoseconds per pixel of every
// engine operation, measured by ./costgen on the engine itself (the median of 7 renders
// of each operation alone on the sample photo at 1024 px), times the pixels of the
// stated size (Options.EstimateWidth, EstimateHeight; else the image size; else
// 1024x1024), times p. Regenerate the table with
//
//	go run ./internal/prompt/costgen -o internal/prompt/costs.json
//
// after changing an operation; TestEstimate fails when an operation has no price.
//
// A prompt longer than MaxPromptBytes is one error and is not read.
package prompt
