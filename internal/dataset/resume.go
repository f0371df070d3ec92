package dataset

import (
	"path"
)

// namedFor reports whether rec names the files a run of this recipe writes for
// variant v of the image at rel: its image is OutputName(rel, v, ext) for an
// extension an augmentation may give, and each label file is the one that image's
// stem gives (<stem>.txt, <stem>.xml, masks/<stem>.png), each once. A record read
// back from a manifest or journal is only a claim: one naming any other file of the
// output folder (classes.txt, another variant's image) must not be reused as this
// variant, however well that file's hash matches.
func (rec *Record) namedFor(rel string, v int) bool {
	ext := path.Ext(rec.Output)
	if rec.Source != rel || rec.Variant != v || !validExt.MatchString(ext) || rec.Output != OutputName(rel, v, ext) {
		return false
	}
	stem := stemOf(rec.Output)
	allowed := map[string]bool{stem + ".txt": true, stem + ".xml": true, path.Join("masks", stem+".png"): true}
	for _, l := range rec.Labels {
		if !allowed[l.Path] {
			return false
		}
		delete(allowed, l.Path) // each once
	}
	return true
}
