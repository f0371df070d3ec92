package prompt

// The words below are English, not vocabulary: how people say how much, how often and
// which way. Which transforms exist, what they are called and what they take comes only
// from the loaded manifests.

// intensity maps an intensity word to the fraction of the way from a parameter's
// default to the far end of its range (see package doc).
var intensity = map[string]float64{
	"barely": 0.1, "tiny": 0.1, "subtle": 0.1, "subtly": 0.1, "faint": 0.1, "hint": 0.1,
	"slight": 0.25, "slightly": 0.25, "little": 0.25, "bit": 0.25, "light": 0.25, "lightly": 0.25,
	"mild": 0.25, "mildly": 0.25, "gentle": 0.25, "gently": 0.25, "soft": 0.25, "small": 0.25, "low": 0.25,
	"medium": 0.5, "moderate": 0.5, "moderately": 0.5, "some": 0.5, "normal": 0.5, "noticeable": 0.5,
	"strong": 0.75, "strongly": 0.75, "heavy": 0.75, "heavily": 0.75, "lot": 0.75, "lots": 0.75,
	"much": 0.75, "very": 0.75, "intense": 0.75, "large": 0.75, "big": 0.75, "high": 0.75, "hard": 0.75, "significant": 0.75,
	"extreme": 1, "extremely": 1, "maximum": 1, "max": 1, "full": 1,
}

// pictureThings are things in a picture a step may be asked to run on ("blur out
// faces", "blur the background"): a part of the image, not all of it.
var pictureThings = map[string]bool{
	"face": true, "faces": true, "plate": true, "plates": true, "license": true, "licence": true, "number": true,
	"background": true, "foreground": true, "sky": true, "people": true, "persons": true, "person": true,
	"pedestrians": true, "cars": true, "vehicles": true, "logos": true, "logo": true, "heads": true, "eyes": true,
	"objects": true, "subject": true, "subjects": true, "edges": true, "borders": true,
}

// bareOfPair is the way a pair's word said alone means: an unqualified "flip" is
// left-right, the flip of torchvision's RandomHorizontalFlip and Ultralytics' fliplr.
const bareOfPair = "horizontal"

// exactWords ask for a value as written, not drawn around the default: "rotate by
// exactly 90 degrees" is 90, where "rotate 90" is albumentations' limit ±90.
var exactWords = map[string]bool{
	"exactly": true, "exact": true, "precisely": true, "fixed": true, "deterministic": true, "constant": true,
}

// levelWords say a number is a pixel value on 0..255 ("std 5-15 pixel values", "grey
// levels"), not a size in pixels.
var levelWords = map[string]bool{
	"values": true, "value": true, "levels": true, "level": true, "intensities": true, "grey": true, "gray": true,
}

// frequency maps a word of frequency to the probability p that the transform runs.
var frequency = map[string]float64{
	"always": 1, "rarely": 0.1, "seldom": 0.1, "occasionally": 0.25,
	"sometimes": 0.5, "maybe": 0.5, "perhaps": 0.5, "often": 0.75, "frequently": 0.75,
	"usually": 0.8, "mostly": 0.8,
}

// frequencyPhrase are phrases of how often, several words long, each read as the word
// frequencyPhraseWord: all say "now and then", a low probability.
var frequencyPhrase = [][]string{
	{"now", "and", "then"}, {"every", "now", "and", "then"}, {"now", "and", "again"},
	{"from", "time", "to", "time"}, {"every", "so", "often"}, {"once", "in", "a", "while"},
	{"every", "once", "in", "a", "while"}, {"on", "occasion"}, {"at", "times"},
}

const frequencyPhraseWord = "occasionally"

// purposeWords open what a clause says a step is for or why ("on 10% to mimic
// altitude changes", "since the lens is fixed"), no value of the step.
var purposeWords = map[string]bool{
	"to": true, "for": true, "so": true, "since": true, "because": true, "as": true, "cause": true, "bc": true, "then": true, "but": true,
}

// copulas before a frequency word make it a description of the images ("the clips
// were mostly shot at dusk", "they are often dark"), not how often a transform runs.
var copulas = map[string]bool{"is": true, "are": true, "was": true, "were": true, "been": true, "being": true, "be": true}

// hedges before a number hedge the number ("maybe 5-10"), not how often.
var hedges = map[string]bool{"maybe": true, "perhaps": true}

// portion maps a word of how many images ("some of them", "a few of the images") to
// the probability p that the transform runs.
var portion = map[string]float64{
	"few": 0.25, "some": 0.5, "half": 0.5, "many": 0.75, "most": 0.8,
	"third": 0.33, "quarter": 0.25, "tenth": 0.1, "fifth": 0.2,
}

// negative words turn a value towards the low end of its range; positive ones say the
// high end explicitly.
var negative = map[string]bool{
	"decrease": true, "reduce": true, "reduced": true, "less": true, "lower": true, "minus": true,
	"negative": true, "counterclockwise": true, "anticlockwise": true, "counter": true, "anti": true,
	"left": true, "down": true, "darken": true, "darker": true, "desaturate": true, "desaturated": true, "dimmer": true, "weaken": true, "ccw": true, "remove": true, "out": true,
}

var positive = map[string]bool{
	"increase": true, "increased": true, "more": true, "raise": true, "boost": true, "clockwise": true,
	"right": true, "up": true, "plus": true, "add": true, "strengthen": true, "cw": true, "higher": true,
	"saturate": true, "saturated": true, "brighter": true, "brighten": true, "lighter": true, "lighten": true,
}

// separators cut a prompt into clauses, one transform each.
var separators = map[string]bool{
	"and": true, "then": true, "also": true, "plus": true, "afterwards": true, "finally": true, "next": true, "&": true, "+": true,
}

// filler words carry nothing for a clause with no vocabulary phrase in it.
var filler = map[string]bool{
	"a": true, "an": true, "the": true, "it": true, "its": true, "this": true, "that": true, "image": true,
	"photo": true, "picture": true, "please": true, "apply": true, "add": true, "make": true, "do": true,
	"some": true, "with": true, "to": true, "by": true, "of": true, "on": true, "in": true, "at": true,
	"and": true, "then": true, "also": true, "me": true, "i": true, "want": true, "would": true, "like": true,
	"use": true, "give": true, "set": true, "be": true, "is": true, "for": true, "so": true, "bit": true,
	"little": true, "more": true, "less": true, "very": true, "slightly": true, "slight": true, "strong": true,
	"medium": true, "image's": true, "them": true, "each": true, "every": true, "all": true, "randomly": true,
	"random": true, "effect": true, "transform": true, "augmentation": true, "up": true, "down": true,
	"sometimes": true, "often": true, "rarely": true, "always": true, "time": true, "times": true, "of the": true,
	"degrees": true, "percent": true, "%": true, "px": true, "pixels": true, "intensity": true, "amount": true,
	"strength": true, "value": true, "level": true, "too": true, "just": true, "now": true, "can": true, "you": true,
	// "w/" is "with" ("filled w/ gray", "rotate w/ reflect border").
	"w": true,
	// Greetings and thanks, and what a request says of its images.
	"hey": true, "hi": true, "hello": true, "thanks": true, "thank": true, "thx": true, "cheers": true,
	"but": true, "only": true, "amounts": true, "could": true, "images": true, "photos": true,
	"pictures": true, "my": true, "our": true, "dataset": true, "ok": true, "okay": true,
	// Verbs that only ask for the transform named after them.
	"change": true, "adjust": true, "convert": true, "simulate": true, "keep": true, "keeping": true,
	"generate": true, "create": true, "produce": true, "perform": true, "or": true, "need": true,
	// "vary brightness by 10%": the words after it are drawn (token.random).
	"vary": true, "varied": true, "varying": true,
	// "each one independently at 5%": each transform on its own p.
	"independently": true, "separately": true,
	// Hedges around a number or a request ("about 10%", "applied roughly half the
	// time", "anywhere from 40 to 95", "nothing else"), and what a list of them is.
	"about": true, "around": true, "roughly": true, "approximately": true, "approx": true,
	"anywhere": true, "applied": true, "nothing": true, "else": true, "pls": true, "plz": true,
	"transforms": true, "transformations": true, "augmentations": true, "aug": true, "augs": true,
	"~": true, "overall": true, "say": true, "ish": true, "exactly": true, "exact": true, "precisely": true, "fixed": true, "deterministic": true, "fairly": true, "quite": true, "somewhat": true, "patches": true, "crops": true,
	// The words of a range, read with its numbers ("between 3 and 7"), and of a preset.
	"between": true, "from": true, "preset": true, "look": true, "looks": true, "as": true, "if": true, "shot": true, "taken": true,
}

// units maps a unit word to the unit a number was written in.
var units = map[string]string{
	"%": "%", "percent": "%", "pct": "%",
	"degrees": "deg", "degree": "deg", "deg": "deg", "°": "deg", "degs": "deg",
	"px": "px", "pixels": "px", "pixel": "px", "pix": "px",
	"k": "k", "kelvin": "k",
	"ev": "ev", "stops": "ev", "stop": "ev",
	"x": "x", "times": "x",
}

// compositions are albumentations' containers of transforms, lowered: words of its API,
// not transforms. A prompt that writes one in code has its transforms read one by one.
var compositions = map[string]bool{
	"compose": true, "oneof": true, "someof": true, "sequential": true, "oneorother": true,
}

// frequencyWords are the words of a probability besides numbers and units ("20% of the
// time", "with probability 0.3", "p=0.5", "half the time").
var frequencyWords = map[string]bool{
	"probability": true, "prob": true, "p": true, "chance": true, "likelihood": true, "half": true, "both": true,
	"cases": true, "images": true, "=": true, ":": true,
}

// portionNouns are what a portion is of ("half the images", "10% of samples", "20% of
// the time"): the images a transform runs on, or the times it is drawn.
var portionNouns = map[string]bool{
	"images": true, "photos": true, "pictures": true, "samples": true, "frames": true, "inputs": true,
	"examples": true, "data": true, "dataset": true, "time": true, "cases": true, "batch": true, "ones": true, "imgs": true, "pics": true,
	"tiles": true, "shots": true, "scans": true, "clips": true, "slides": true, "patches": true, "crops": true,
}

// rangeEnds are the last words of albumentations 1.x's range arguments in code
// (quality_lower, quality_upper, scale_min, scale_max): -1 the low end, +1 the high.
var rangeEnds = map[string]int{"lower": -1, "min": -1, "upper": 1, "max": 1}

// approx hedge a value after its parameter's name ("std roughly 5-10"): the value is
// still that parameter's.
var approx = map[string]bool{"roughly": true, "about": true, "around": true, "approximately": true, "approx": true, "~": true, "circa": true}

// scaleNouns close a statement of the scale the values are written on ("in 0-255
// pixel units", "on a 0-255 scale").
var scaleNouns = map[string]bool{"units": true, "unit": true, "scale": true, "range": true, "levels": true, "values": true, "pixel": true, "px": true, "intensities": true}

// colourLevels are the greys a colour word names, from 0 (black) to 1 (white): what a
// transform fills with ("pad with black", "filled with mid gray").
var colourLevels = map[string]float64{
	"black": 0, "white": 1, "gray": 0.5, "grey": 0.5, "zero": 0, "zeros": 0, "zeroes": 0,
}

// shadeLevels move a grey towards black or white: "dark gray" is 0.25, "light gray"
// 0.75.
var shadeLevels = map[string]float64{"dark": -0.25, "light": 0.25}

// borderNouns after a colour say what it fills: "black borders", "gray padding".
var borderNouns = map[string]bool{"border": true, "borders": true, "padding": true, "background": true, "bars": true, "edges": true}

// unboundedWords say a turn may take any angle ("rotate to any angle", "arbitrary
// rotations", "rotate freely"), beside an angleWord: the whole turn, ±180 degrees
// (albumentations' Rotate(limit=180)).
var unboundedWords = map[string]bool{
	"any": true, "arbitrary": true, "arbitrarily": true, "free": true, "freely": true, "unrestricted": true,
	"unconstrained": true, "unlimited": true, "fully": true, "whatever": true,
}

// angleWords are English words of turning and of angles, next to which an
// unboundedWord or a full 360 means the whole turn.
var angleWords = map[string]bool{
	"angle": true, "angles": true, "rotation": true, "rotations": true, "orientation": true, "orientations": true,
	"rotate": true, "rotated": true, "rotating": true, "rotates": true, "spin": true, "spun": true, "spinning": true,
	"turn": true, "turned": true, "tilt": true, "tilted": true, "rot": true,
}

// switchWords are the values of a switch written as words (per_channel=True, "per
// channel on").
var switchWords = map[string]float64{"true": 1, "false": 0, "on": 1, "off": 0, "yes": 1}
