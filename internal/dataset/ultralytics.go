package dataset

import (
	"fmt"
	"path"
	"sort"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// The Ultralytics layout keeps an image's YOLO labels in a parallel tree:
//
//	data.yaml                      names (a list or a map), the splits' folders
//	images/train/000001.jpg        labels/train/000001.txt
//	images/val/000002.jpg          labels/val/000002.txt
//
// as Ultralytics' img2label_paths finds them: the image's path with its last images/
// folder replaced by labels/ and its extension by .txt. A variant's labels go to the
// same place in the output's tree (labels/train/000001_v0.txt), so the output is a
// dataset Ultralytics trains on with the input's data.yaml, copied verbatim.

// ultralyticsLabel is where the Ultralytics layout keeps the labels of the image at
// rel, or "" when rel is under no images/ folder.
func ultralyticsLabel(rel string) string {
	p := "/" + rel
	i := strings.LastIndex(p, "/images/")
	if i < 0 {
		return ""
	}
	return strings.TrimPrefix(stemOf(p[:i]+"/labels/"+p[i+len("/images/"):])+".txt", "/")
}

// labelExts are the extensions of files that look like labels: such a file that no
// image's labels are read from is reported, never passed over in silence.
var labelExts = map[string]bool{".txt": true, ".xml": true, ".json": true, ".csv": true, ".yaml": true, ".yml": true}

// unreadLabels lists the files that look like labels but label no image: a YOLO or VOC
// file whose image is not in the folder (or whose name does not match one), .txt and
// .xml files beside a COCO file (which labels the folder alone), a JSON file that is
// not the COCO instances file, a mask with no image, a format darkroom does not read.
// Each is a Skip with invalid_input and why.
func (d *Dataset) unreadLabels(cocoFile string) []Skip {
	used := map[string]bool{"classes.txt": d.coco == nil, "data.yaml": d.coco == nil, cocoFile: cocoFile != ""}
	for _, img := range d.Images {
		stem := stemOf(img)
		used[path.Join("masks", stem+".png")] = true
		if d.coco != nil {
			continue
		}
		used[stem+".txt"], used[stem+".xml"] = true, true
		if u := ultralyticsLabel(img); u != "" && !d.files[stem+".txt"] {
			used[u] = true
		}
	}
	var out []Skip
	for p := range d.files {
		if used[p] || imageExts[strings.ToLower(path.Ext(p))] && !strings.HasPrefix(p, "masks/") {
			continue
		}
		ext := strings.ToLower(path.Ext(p))
		var why string
		switch {
		case strings.HasPrefix(p, "masks/"):
			why = "a mask with no image at its path (masks/<dir>/<stem>.png labels <dir>/<stem>.<ext>)"
		case d.coco != nil && (ext == ".txt" || ext == ".xml"):
			why = "not read: the COCO file " + cocoFile + " labels this folder, and then .txt and .xml files are not read"
		case ext == ".txt" || ext == ".xml":
			why = "no image has this label file's path (<dir>/<stem>.txt or .xml beside it, or images/... for labels/...)"
		case labelExts[ext]:
			why = "not read: a " + ext + " file that is no label format darkroom reads (YOLO .txt, Pascal VOC .xml, one COCO .json at the top, data.yaml, classes.txt)"
		default:
			continue
		}
		out = append(out, Skip{Source: p, Code: darkroom.InvalidInput, Message: fmt.Sprintf("%s: %s", p, why)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Source < out[j].Source })
	return out
}
