// Package prompt reads a natural-language augmentation prompt ("add blur and rotate 15
// degrees") into a pipeline of vocabulary entries with values, ranges and probabilities,
// in each entry's own units. It knows no MCP and renders nothing: it is what
// validate_prompt returns and what augment_image {prompt} runs. There is no language
// model and no list of transforms in Go: everything it recognizes comes from the loaded
// manifests (entry names, aliases, examples, parameter names, ranges and units, and the
// prompt data of contracts/prompt.cue: a parameter's other names with how their values
// read, an entry's prompt block), so a pack author extends it by writing a manifest.
// The only words in Go are English ones (words.go): how people say how much, how
// often, which way, and units; and albumentations' container names (Compose, OneOf).
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
// what it cannot use is an Issue. A step whose words give a value outside its
// parameter's range is left out, its words listed as a warning with the range, and the
// rest of the prompt runs (Strict keeps it an error; so does a prompt with no other
// step). augment_image should refuse a prompt whose Result is
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
// position ("randomly" reads as "random" when that is longer: "randomly crop" is
// "random crop"; a longer phrase starting inside a match and ending past it wins:
// "random brightness/contrast" is brightness/contrast), before anything is split, so "motion blur" is motion_blur and not blur,
// and "brightness and contrast" or "salt and pepper" stay whole ("crop&pad" too: an &
// between words that make a phrase with "and" is that "and"); a one-word phrase a
// hyphen joins to a word no phrase has ("crop-row imagery", "noise-free shots") is a
// word of the prose, no phrase; a word of variation (jitter, shift) right after a
// phrase and the parameters it names ("hue/sat jitter") says they vary, and is no
// transform of its own; "none" or "off" after a parameter's name of a transform named
// before in the sentence ("Affine: ..., shear none") is 0. A word may read as its
// singular ("small rotations") and a degree sign as "degree" ("random 90° rotations").
// A word of seven letters or more that no phrase, parameter or English word of
// words.go has, one edit from a phrase word with the same first letter (two for eight
// letters or more), and from no other, is read as that word with a warning
// ("contrst", "guassian", "brigthness", "brightnes"); another form of a word, one with
// an English ending ("mirrored", "blurring"), is none. A word of five or six letters is
// read so only for a slip that keeps its letters, two neighbours swapped or a doubled
// letter written once, onto one phrase word or range word ("rotaet", "betwen"). The rest is cut into
// clauses at commas, semicolons, full stops, dashes (a hyphen standing alone between
// words too, "invert - each at 5%"), "+" and the words and, then, also, plus
// ("and" between the ends of a range does not cut). In a clause, each phrase owns the words up
// to the next phrase; words before the first belong to the first. A phrase that is a
// parameter name of the entry before it is that parameter ("color jitter brightness
// 0.2 contrast 0.1"). A clause with no phrase continues the transform before it when it
// names one of its parameters ("gaussian blur, radius 0.01"), names a preset, or is
// compared with every entry's example phrases (the entry whose example shares at least
// half of its words, unique, with confidence 0.8 x that share); otherwise it is a
// warning with the nearest phrases (edit distance) as suggestions. A preset's name asks
// for the preset when the clause says preset, or apply, use, like, simulate, make,
// it, look or as come just before it ("make it vintage"), or when it is the whole
// prompt ("satellite"); otherwise it says what the images are or are for ("I'm doing
// cell segmentation on microscopy images", "for aerial tiles", "the usual augmentations
// for a kaggle image classification comp"): listed unread with the preset suggested,
// never run unasked, and words before its "for" are read alone ("flips for aerial
// tiles" flips).
//
// When two entries claim a phrase, the one whose parameters take the units the clause
// gives wins and that is no ambiguity; so does the only augmentation (tagged
// augmentation) among them, since a prompt asks for augmentations ("rotate 90" is
// random_rotate_90, "mist" random_fog, "darker" and "brightness" random_brightness,
// not the editing entries; an editing entry's example phrase holding such a shared
// name is not matched whole). Otherwise the one whose name shares most words with the
// phrase, then the first by name, is chosen, the ambiguity is reported with both
// interpretations ("distortion": grid_distortion and optical_distortion) and the
// transform's confidence is 1/n. Options.Strict turns each such ambiguity into an
// error.
//
// What a prompt says besides transforms (intent.go): "5 variants" (versions, copies,
// augmentations, "I need 10 variants of each image") is Result.Variants, read before
// anything else so that its number is no angle, and augment_image warns when count
// differs ("generate 5 per image", "25 imgs per input" too); a negator (no, not,
// without, don't, never, avoid, skip) before a phrase, or before a word of entries'
// names ("no flips": flip_horizontal and flip_vertical; "no flipping", "no scaling":
// a verb's -ing or -ion form, of the first or last word of names, and not of an entry
// a phrase before it names), and on over "or" ("no flips or
// crops", "not shift hue or do any colour jitter"), leaves those entries out
// (Result.Excluded, with a warning naming them), as do "leave X alone", "keep X as is";
// avoid, exclude and without reach every phrase to the end of their clause ("avoid
// anything that distorts faces like elastic or grid distortion"). "both flips" and
// "all flips" ("flips both ways") are each entry with that word. A clause with no
// phrase that opens with a negator and resembles an entry's example ("No colour
// changes whatsoever") adds nothing, and an entry the prompt excludes is never added by
// another mention of it; "geometry only" keeps to a tag, with a warning naming
// transforms outside it. A frequency word after a copula ("the clips were mostly shot
// at dusk") describes the images and sets no p; "each 30%", and a bare "p .5" closing a
// list none of whose transforms gave a p, is every listed transform's p. "x10" and "3
// each" closing a clause are variants, and so are "five variants" (a number word),
// "3x:" heading the prompt, "12 augmented per original" and "4 per image" standing as
// a clause. A judgement after a phrase in its clause ("vertical flip would be
// nonsense", "is useless", "not needed", "makes no sense") excludes it as a negator
// would; "drop the X" takes a step out of pasted code. A phrase after a copula or a
// frequency word opening a parenthesis ("scanners are mono anyway", "(scanned, mostly
// grayscale)") describes the images: it adds nothing and is listed. A phrase that
// only explains another is no second transform: a colour after a fill word ("filled
// w/ gray"), a transform named in a parenthesis right after another (the parenthesis
// is kept: "colour cast (RGB shift ...)"), an example after "like" of the same kind
// ("sensor noise like ... high ISO" is iso_noise), an operation done "via"/"using" an
// entry (that entry: "random scale 0.5-1.5 via affine"), and "keep hue at or below
// 0.05" after a transform with a hue (a bound, warned); "p 0.8 for the noise" is the
// p of the noise named before. "50/50" is p=0.5. Two phrases of one entry in a clause
// ("occlusion / cutout") are one transform, and so is an entry named again in another
// clause: that mention's p and values are the first one's ("RandomFog ..., fog fairly
// often, like 70% of the time"). A clause that only says how much ("shift scale
// rotate, small amounts") is the transform's before it; one that only says how often is
// its p, and every earlier transform's without one when it says both, all or each
// ("GridDistortion + ElasticTransform, both at p=0.25"; "all rarely"). A clause that
// starts with a parameter of the transform before it, which its own clause gave values,
// goes on with it ("HSV jitter with hue ±5, saturation ±15"), and a phrase right after
// a parameter's name is a value of it ("fill with gray"), not a transform.
// A bare number outside its parameter's range
// that one of the parameter's albumentations units (percent, level_255, variance_255,
// kernel_limit, kernel_px, limit, in that order) puts inside is read in that unit, with
// a warning ("random gamma 80 to 120" is gamma_limit, 0.8..1.2; "RGB shift up to 15" is
// 15 of 255 levels; "motion blur 7" is blur_limit, kernels 3..7; "scale 0.1" of a shift
// scale rotate is scale_limit); failing those, a level of 0..1 reads on 0..255 ("std
// 5-15 pixel values", "fill 128") and a change around 0 reads as a factor around 1
// ("contrast 0.8-1.2" is ±0.2, a zoom blur's "max factor 1.1-1.3" amount 0.1..0.3);
// and a value with no name goes to every parameter of prompt.sample when they share one
// unit (RGBShift's red, green and blue).
//
// Nothing is dropped silently: every word of the prompt is read (it named a transform,
// a parameter, a value, a count, a probability, a negation, a preset, or it is English
// of words.go that says how much, how often, which way or nothing) or it is a warning
// with Issue.Phrase set: an unknown phrase, a value with nothing to apply to, an
// argument of albumentations code no parameter takes, a call to a transform no entry
// is, and a word inside a transform's clause that nothing took (neighbouring such
// words are one phrase; a number and the unknown word after it, "2 iterations", are
// one), or beside a preset's name. An unknown word right before an entry's generic
// noun names a kind of it the vocabulary lacks ("median blur", "bilateral blur"): the
// two are listed and no box blur runs. Padding named with a rotation ("with constant
// zero padding at the borders") is how it fills its borders, listed, not a pad step. A portion word no construction read
// ("half" with nothing it is half of) is listed too. Result.Unread lists them, and
// augment_image and augment_dataset report each in their skipped lists.
// TestEveryWordAccounted checks this over both corpora.
//
// More of what adds no step: a look after the images' size ("1024px grayscale",
// "256x256 grayscale patches") for a transform that takes no value, or opening its
// clause before a noun no phrase reads or a count ("grayscale chest x-rays for
// classification", "grayscale 1-channel"; not "grayscale conversion", nor with a p
// or a value); a look word that is all a parenthesis holds right after
// a word no phrase took ("Dental xrays (grayscale)"), a phrase closing its clause after
// a hedge of how the images are ("IR cameras so basically monochrome"), and a one-word
// phrase between such a word and a noun of images ("night shift footage") say what the
// images are: listed, and no example phrase turns them back into a step; so does an
// adjective later in a sentence whose verb is a copula ("animals are often occluded,
// and blurry when moving"), unless a request word comes before it ("should be
// blurry"). A colour after
// a fill word and a shade ("filled with mid gray") is the fill, and a clause of a
// colour with a fill word after a pad ("pad to 1024x1024 ..., black padding", "fill
// with black") is that pad's fill (pad_constant), not a step. A clause whose only
// phrase is padding, with a fill word and no size, after a transform that turns,
// shears or warps ("... rot 0. Pad with white, not reflect.") is how that one fills its
// borders, listed, not a pad step. Values listed after a transform named bare before a
// comma or colon ("color jitter, brightness 0.2, contrast 0.2", "random erasing, 2-4
// holes") are its own, not new steps; what its prompt.sample drew together gives way to
// them, and so is a clause of values only in a unit a free parameter of it takes
// ("Cutout: 1-6 holes, each 16-32 px"; one that does not fit that parameter's range is
// listed instead); a one-word clause that with the head of the transform before names another
// entry says which kind ("blur slightly — gaussian, sigma up to 1" is gaussian_blur).
// Words naming transforms before only by a word of their names, with a p ("noise and
// blur at p=0.5"), give those their p. "X or Y", alone ("add blur or noise 20% of the
// time") or in a sentence that says a choice ("either", "one or the other", "not
// both", "one of the two", "pick one"), is a one_of group of the transforms joined by
// "or", whose p is the one the words gave (else 1), each member at p 1; "just one",
// "at most one" and "one of:" a list say a choice too (so does "one of" a list with no
// colon: "one of rain / fog / snow"), a p said of "the group" after its members in
// their sentence ("p=0.3 for the group", "; that group on 60% of pages") is the
// choice's when no member was given one, "one of" or "(one)" closing the list says a
// choice and a p or a lone percentage right after it is the choice's ("blur or motion
// blur (one of, p=0.5)", "sharpen or emboss (one), 25%"), "SomeOf 2 from [a, b, c]"
// is a some_of of n 2, "A, B or C" joins all three (not A given its own p, nor a
// geometric A before pixel-level B and C or the reverse: "hflip, sharpen or emboss"),
// and
// "A 10% and B 10%, never both (on the same image)" is a one_of whose p is what each
// was given, added (0.2). A choice's p said after a member darkroom cannot do ("either
// motion blur or defocus, p 0.25") stays with the member read. Two words joined by
// and, &, +, / or or that share the word after or before them, each a phrase with it
// and none alone, are two phrases ("h and v flips", "flip lr+ud"); a p said "each"
// right after it ("at p=0.5 each", "50% each") is also each transform's named before
// it in its sentence that no words gave a p. "now and then", "every so often", "from
// time to time", "once in a while" read as "occasionally"; "on 10%" closing a step,
// before words saying why ("on 10% to mimic altitude changes"), is 10% of the time,
// and so is a portion word closing a step ("rotations on half", "for a quarter");
// "and back up for 30% of images" gives the step before its p. An -ing form of a
// one-word phrase is that phrase ("make it look like it's snowing"), and "like it
// is"/"as if it were" before a phrase ask for it; "turn X into Y" is no rotation; a
// step said to run only on part of the image ("motion blur only on the moving cars")
// or on a thing in it named right after it ("blur out faces", "pixelate the license
// plates", "blur the background") is listed, not run on all of it; "turn X to Y"
// before a phrase is no rotation either ("turn one image in ten to grayscale"); a
// parenthesis after a word naming the images that
// opens with a phrase and says how they were made ("(grayscale saved as 3ch)")
// describes them; an intensity word beside a value given draws no other parameter
// ("small skew up to 2 degrees" scales nothing). A negator with
// a verb between ("don't touch hue", "never alter") negates; a negated direction word
// beside another mention of its entry ("only darker, never brighter") says which way
// and excludes nothing; a bound after a negated phrase ("no rotations beyond 3 deg",
// "no shift over 10%") asks for the transform up to it. "up to A" with one direction word is the limit on that side
// ("lower contrast by up to 30%" is -0.3..0), on a parameter with no sign from none
// ("sigma up to 1"), and "down to -40%" runs from none to -40%; "-ish" hedges an
// intensity word ("heavy-ish blur").
// "(in 0-255 pixel units)", "on a 0-255 scale" state the scale, no value; a hedge after a
// parameter's name ("std roughly 5-10") keeps the value its, and so do words saying
// which way it goes ("red goes down by 20-50", "red only goes down (-20..0)"). The plural of a pair's
// word ("random flips", "flips") is both of the pair; the word alone ("flip 50%", "flip
// it") is the horizontal one; said at random ("random flips") each runs at p 0.5 unless
// a p is given, and a p after two phrases of one shared word ("flip h/v at 0.5", "h
// and v flips p .5") is each one's. Both of a pair that takes no value asked for
// with no p ("h/v flips", "flips h+v", "hflip+vflip", "hflip vflip", "flip both ways",
// "flips (both)") run at p 0.5 each, albumentations' default: both always would be one
// fixed turn of 180 degrees. So does any flip or transpose with no p said ("hflip,
// rotate 10"): always run, it would mirror every image, a dataset turned rather than
// augmented; "always", "on every image", "every single one" or a p keep it. With
// Parser.Lacking (the
// augmentation service passes albumentations' transforms darkroom cannot do, from
// vocabulary/albumentations/transforms.yaml), a prompt naming one in prose or code
// ("some defocus", "use PiecewiseAffine", "superpixels", A.MedianBlur(...)) has it listed
// with albumentations' class and why, with what its clause says of it (a p after it is
// its own), and no near entry stands in for it.
//
// Brackets in prose are prose ("gaussian blur (sigma 0.5-1.5 px)"); only a call's
// parentheses hold code. A portion word before an intensity word says how many images
// ("some slightly blurry" is p 0.5). A whole number after "to" with no unit that the
// parameter's range cannot hold is an output size in pixels (albumentations' height
// and width): an entry with a size or an area takes it as a square ("center crop to
// 224"), another lists it as unread and is drawn as if named with no value ("random
// resized crop to 224"); a square WxH for an entry without width and height is one
// side in pixels ("8 holes of 32x32 pixels"), and for an entry that counts cells, tiles
// or steps the count ("grid shuffle 4x4", "8x8 tiles"). A size for an entry whose width
// and height may pass the image's (pad_if_needed) is in fractions of the long edge. A margin in pixels on every side ("pad 16 px each side",
// "reflect-pad by 32", "a 10 px border") pads such an entry to the image grown by
// twice the margin (albumentations' CropAndPad(px=16, keep_size=False)); without the
// image size it is pending. A size inside a two-word phrase ("random 224x224 crop")
// is that phrase's value.
//
// # Manifest data the parser reads (contracts/prompt.cue)
//
// A parameter's also names it otherwise, each name with how its value reads: "limit"
// (albumentations' limit: a single v is default ± v, "rotate limit=15" is [-15, 15]),
// "limit_fraction" (±v as a percentage: brightness_limit 0.2 is "up to 20%"),
// "turn_fraction" (ColorJitter's hue; in prose too a hue of at most 0.5, "hue 0.05",
// is a fraction of a turn), "variance_255" (GaussNoise's var_limit: a
// variance in grey levels squared becomes sigma sqrt(v)/255), "kernel_px" and
// "kernel_limit" (a kernel size k is a radius of (k-1)/2 pixels; blur_limit 7 is 3..7),
// "level_255", "percent" and "area_px" (a crop size WxH as an area fraction, with a
// warning that the shape is not kept), with scale and negate (a limit with a scale also
// reads a range or a signed value outside the parameter's range: HueSaturationValue's
// "saturation ±15" in OpenCV's 0..255 S is ±15/128, RGBShift's r_shift_limit ±v/255) (albumentations' angles
// turn counter-clockwise). A name marked code counts only as name=value inside a
// call's parentheses. Two parameters may share a name (shift_limit, "x"/"y"): a value
// goes to each, read through each one's own reading of the name (a colour jitter's
// "strength" s, SimCLR's colour distortion, is 0.8s of brightness, contrast and
// saturation and 0.2s of a turn of hue). An entry's prompt block gives sample (the ranges drawn when it is
// named with no value: "color jitter" draws brightness, contrast, saturation and hue,
// as albumentations' ColorJitter does), free (drawn whenever not given: a motion
// blur's direction), strength (the parameter without which the entry is a no-op, set
// when the prompt gives only others: "CLAHE with clip limit 4" gets amount 1), heads
// (generic nouns that stay the head of the phrase before them: "perspective warp" is
// not also an elastic warp) and code_p (albumentations' default p when a call has none;
// else BasicTransform's 0.5). An alias made of another entry's name and a phrase of its
// own ("rotate without losing the corners") is read when the prompt splits it with a
// value, a comma or "and" ("rotate up to 90 degrees without losing the corners" is
// safe_rotate by up to 90): one transform, not two (split_alias.go).
//
// # Albumentations code in a prompt
//
// A.Rotate(limit=15, p=0.7) reads as albumentations means it: the module prefix is
// dropped, a call ends its transform (a container's p after it is not the inner
// transform's), commas between a call's arguments cut nothing, a tuple or list of two
// numbers is a range, albumentations 1.x's two arguments of one range
// (quality_lower=50, quality_upper=80; scale_min, scale_max: a parameter's name and
// lower, upper, min or max) are its ends, the default standing for an end not written,
// a positional argument is the parameter in that place read through its albumentations
// name (RGBShift(15, 15, 15) is ±15 on each channel, HueSaturationValue(10, 20, 0);
// in prose too, three or more numbers listed with slashes or in brackets after a
// transform: "color jitter 0.4/0.4/0.4/0.1", "(0.4, 0.4, 0.4, 0.1)"; names of its
// parameters listed with slashes share the value after them: "b/c/s/h = 0.2",
// "brightness/contrast/saturation 0.2"),
// name=value takes the parameter's also names (code ones first),
// and a call with no p has albumentations' default p. Inside parentheses only another
// call names a transform (blur_limit is Blur's argument, not a blur). A container
// (OneOf, SomeOf, OneOrOther, Sequential) is Transform.Group of each transform written
// inside its brackets, the innermost one's, nested through Group.Parent, with its own
// arguments (p, SomeOf's n and replace; albumentations 1.3.1's default p otherwise):
// the pipeline carries it as step groups that choose as albumentations' do.
//
// Prose after pasted code edits it (edits.go): a clause with a container word (group,
// OneOf, choice) and one p sets the container's p ("bump the group to 0.5", "set the
// oneof p to 0.6"); an edit verb, a p word and one phrase set that step's p ("change
// the p of the rotate to 0.3"); "add X as a third option" or "add X to the group" puts
// X in the container at albumentations' default p (a weight in a OneOf); "drop the X"
// takes the code's steps of X's kind out ("drop the blur": GaussianBlur), each said in
// a warning; "same thing but only 10 degrees of rotation", "... instead" changes the
// code's one step that has the parameters the words give, adding no step. An edit
// with no container or step to act on is listed.
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
// A size in pixels is of the image the steps before it leave (Parser.Frames, with
// the operations' defaults: resolve.Size): in "longest side 640, pad to 640x640" the
// pad's 640 is of the resized image, in "random crop 384x384 and resize to 224x224"
// the resize's 224 of the crop; a step that may not run (p below 1, a group) or draws
// its size leaves the size as it was. "longest side 512", "the shorter side is 800"
// (also names read as long_edge_px, short_edge_px) are the factor that makes that edge
// so long; width=, height= in code (width_px, height_px) are pixels of the image's
// width and height, and a call's positional arguments fill, when only some parameters
// have albumentations' own name, those (A.RandomCrop(512, 384) is height and width).
// "resize ... longest side" is one transform, the exact one. "to square" pads to the
// long edge's square, and "to a 512 square" ("a 640 px square") is 512x512; a clause
// declining another border mode right after a pad ("..., not reflection") says it fills
// with a flat colour (pad_if_needed becomes pad_constant, black unless a colour is
// given). "resize to 50%", "resize to half" (a factor after the phrase's own "to") are
// both sides of a resize at that factor. A value "off every border", "from each edge",
// "on all four sides" or "all around" is each side's of an entry with left, right, top
// and bottom (crop), a margin in pixels of the side it cuts. A size said to be the
// output ("output 300x300", "output size", "resized back to 256x256") in a clause right
// after a random crop is that crop's output size, not a resize of its own; a crop whose
// width and height are its own size (random_crop) gives way to the entry that does the
// same and resizes (random_resized_crop). A percentage or a fraction word followed by
// "of the image side" ("of the width", "of the shorter side") is that share, the
// fraction it is, never a portion of the images ("holes 10-20% of the image side
// each"); a value in a unit the parameter a name names cannot take goes to one that can
// ("patches of 32-64 px" is the holes' size). A colour ("black", "white", "dark gray", "gray (128)", "(114,
// 114, 114)") after a fill word or "with" is the grey of the entry's fill, and an
// entry with none gives way to its variant that fills (pad_if_needed to pad_constant);
// such a colour is no to_gray.
//
// Without an image size a pixel value is not guessed: the transform carries it in
// Pending (parameter, pixels, of long_edge, width or height, margin) with a warning,
// and the caller parses again once it knows the size. A number whose unit no parameter
// takes, a value or either end of a range outside the parameter's declared range, and
// a fraction for an integer parameter are errors naming the entry, the parameter and
// the range ("rotate: angle: 200 is outside [-180, 180]"), with the value as written
// as the phrase ("200 degrees"); the value is dropped, never
// clamped.
//
// An augmentation draws: one unsigned value with no direction, for a parameter whose
// default lies inside its range, reads as its albumentations limit (±v, through the
// parameter's limit name when it has one), as albumentations reads Rotate(limit=45)
// and RandomBrightnessContrast(brightness_limit=0.2): "rotate 45" is ±45 degrees,
// "brightness 0.2" ±0.2, "shift 10%" ±10%, "random brightness/contrast 0.15" ±0.15. An
// augmentation's change around none with no limit name is ±v too ("shear 3 degrees",
// "RGB shift 20"), but not a direction (prompt.free: a motion blur's angle) and not an
// editing entry's value. The words exactly, fixed, precisely ask for the value itself
// ("rotate by exactly 90 degrees clockwise"); albumentations code reads its arguments
// as written (Affine(rotate=10) is 10).
//
// A switch (an integer parameter of 0 or 1: albumentations' elementwise, per_channel)
// named with no value is on ("per channel", or an also name such as "per pixel"); only
// 0, 1, true, false, on or off after its name is its value, and a value with no name
// never goes to it. "X-wise" is one word ("pixel-wise"), and a unit word after "per" is
// no value's unit: "per pixel" no parameter names is listed whole.
//
// A turn to any angle is the whole turn, ±180 degrees (albumentations'
// Rotate(limit=180)): "rotate to any angle", "arbitrary rotations", "rotate freely",
// "full 360", "rotation 0-360". Parameter names of one augmentation no phrase names,
// each with its value ("r ±40, g ±20, b ±20", "red +-30, green +-10, blue +-10") or
// listed with slashes before their values ("R/G/B shift 20/20/10"), name that
// augmentation (RGBShift's limits in grey levels); an editing entry before a colon
// whose list so names an augmentation of its kind ("push the color balance around:
// r ±40, ...") gives way to it, its words listed.
//
// Ranges: "between A and B", "from A to B", "A to B", "A-B", "A..B" (spaces or a unit
// round the dots too: "-30 .. +30 %", "-30%..+30%"), "±A", "up to A",
// "max A", "at most A" and, in code or in prose brackets, (A, B) or [A, B]; the unit
// written once counts for both ends. "up to A" is the albumentations limit [-A, A] for a
// parameter with a sign; for one without, it runs from the default ("blur up to 5 px"
// is 0..5 px, "max 8 holes" 1..8: a count of things is one at least; a factor around
// its default is mirrored, "zoom up to 20%" is 0.8..1.2), and a kernel up to 9 is
// kernels 3..9. A value given with no parameter name goes to every parameter
// the phrase or the words name without a value of their own ("brightness and contrast
// by up to 20%", "translate up to 10% in x and y"), and "and" between two parameters
// of one entry does not cut the clause; one axis word (horizontal, vertically) with a
// phrase naming a parameter on both axes keeps that axis alone ("horizontal shear
// ±15°" is shear_x; shear_y stays 0); a change (a ± or a percentage) after the
// second of two transforms joined by "and" or "&", the first named bare ("contrast and
// brightness jitter ±30%"), is the first's too when it reads there without a warning;
// "either way", "both directions" say the limit is ± as read.
// Phrases naming transforms of their own that
// are together one augmentation's parameters, with only their values between them,
// are that augmentation ("brightness ±0.2, contrast ±0.15, p=0.5" is one
// brightness_contrast at p 0.5; "hue ±10, saturation ±20" hue_saturation_value): of
// the non-geometric entries having each as a parameter, the one of fewest. A
// symmetric range with no unit reads through a limit_fraction name on an exposure in
// stops ("brightness ±0.2" is ±20%) and a turn_fraction one up to 0.5 ("hue ±0.05"
// of a colour jitter is a twentieth of a turn). A percentage of a factor around 1 (a zoom) is a
// change: "zoom in between 10% and 30%" is 1.1..1.3, "to 80%" the factor itself, and
// so are the ends of a range across 100% ("between 50% and 150% of its size").
// Probabilities: "50% of the time", "30% chance", "p=0.3", "with probability 0.3",
// odds ("1 in 10", "one in twenty", "2 out of 5", "one image in ten"), "at 30%" (or a
// fraction, "at 0.2") closing a clause, a lone percentage after a step's own values
// that no free parameter of it takes ("motion blur (kernel 3-11) 40%", "motion blur
// kernel 7, 40 %") and "30%
// overall" (of the time, never a strength), "on everything"/"on every image" (always,
// over a call's default p), "rarely (like 5%) each" (the percentage says how rare;
// so it does right after any word of how often: "a sun flare occasionally (~10%)"),
// a transform with no parameter said random ("a random horizontal flip", "random
// flips", "flip vertically at random") and given no p: albumentations' p 0.5;
// "half the time", a portion of the images ("half the images", "10% of samples", "most
// of them", "about a third of the images"), a lone percentage or fraction on a
// transform that takes no value ("hflip 50%") or none in a percentage ("rot90 with
// 50%", "posterize 30%") or only darkroom's own blend amount at
// full by default, which albumentations' transform does not have ("ToSepia 10%"), and always 1, usually and mostly 0.8, often and frequently 0.75,
// sometimes, maybe and perhaps 0.5, occasionally 0.25, rarely and seldom 0.1; a p
// outside [0, 1] is an error. A p said of each ("A.ISONoise() and RGBShift(...), prob
// 0.3 each") replaces albumentations' default p of calls that wrote none. A clause that only says how often gives the transform
// before it its p ("motion blur with kernel size 5 to 9, 20% of the time"); a phrase
// written in the plural reads as its singular ("random shadows"). Directions:
// decrease, reduce, less, lower, left, out ("zoom out" is affine's scale below 1),
// counter-clockwise, darker, desaturate... make an unsigned number, or both ends of a
// range written without signs ("darker by 10-30%"), negative when the range allows it,
// and cut a drawn range to that side of the default ("desaturate a bit").
//
// Intensity words draw, so variants differ. The word is a fraction f of the way from a
// parameter's default to the end of its range: barely, tiny, subtle 0.1; slight, a
// little, a bit, light, mild, gentle 0.25; medium, moderate, some 0.5; strong, heavy, a
// lot, intense, high 0.75; extreme, maximum, full 1; "very" pushes a weak word to 0.1
// and a strong one to 1. It draws from half of f to f of the way towards the end the
// words point at (the high end, or the low end when they point down or the default is
// the high end: quality 100 for jpeg compression), or from f of the way to both ends
// when they point nowhere and the default lies inside the range ("slight rotation" is
// ±45 degrees). It applies to every parameter the phrase names ("brightness and
// contrast", or one of them when no value is given: "random hue shifts" draws the hue
// alone), else to the entry's prompt.sample parameters, whose albumentations range
// counts as "medium" (slight is half of it, strong one and a half, kept inside the
// parameter's range), else to the first free parameter. Integers are rounded.
//
// An entry named with no value and no intensity draws its prompt.sample parameters
// from their ranges (cut to the side of the default the words point at: "increase
// brightness and contrast"; "add" asks for the transform and cuts nothing), else its
// first parameter from its default to the "slight" fraction (0.25) of the way to the
// end its words point at, or to both ends when they point nowhere and the default lies
// inside the range: "rotate" is [-45, 45] degrees. "add blur" draws its sample, the
// radii of albumentations' kernels 3..7 on a 1000 px image, [0.001, 0.003]; an
// intensity word keeps a kernel range's low end at the smallest kernel and scales its
// width ("a bit of blur" is kernels 3..5, "strong" 3..9).
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
