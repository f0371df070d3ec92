package history

import (
	"strings"
	"testing"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"main", true},
		{"warm-look_2", true},
		{"v1.0", true},
		{"0", true},
		{"img_0001.jpg", true},
		{strings.Repeat("a", MaxNameLen), true},
		{strings.Repeat("a", MaxNameLen+1), false},
		{"", false},
		{".hidden", false},
		{".", false},
		{"..", false},
		{"a..b", false},
		{"-flag", false},
		{"_x", false},
		{"a/b", false},
		{`a\b`, false},
		{"Main", false},
		{"HEAD", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		err := ValidateName("branch", tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("ValidateName(%q): code %q, want invalid_input", tt.name, darkroom.Code(err))
		}
	}
}

// Image ids keep the case photographers use (IMG_1234, an upper-case UUID); branch and
// tag names stay lower case.
func TestValidateImageID(t *testing.T) {
	for _, tt := range []struct {
		id string
		ok bool
	}{
		{"IMG_1234", true},
		{"DSC-0042", true},
		{"0F8FAD5B-D9CB-469F-A165-70867728950E", true},
		{"img_1234", true},
		{"_IMG", false},
		{"IMG 1234", false},
		{"IMG/1234", false},
		{"+img", false},
		{"Ä", false},
	} {
		if err := ValidateName("image id", tt.id); (err == nil) != tt.ok {
			t.Errorf("ValidateName(image id %q) = %v, want ok=%v", tt.id, err, tt.ok)
		}
	}
	if ValidateName("branch", "Moody") == nil || ValidateName("tag", "Pick") == nil {
		t.Error("an upper-case branch or tag name was accepted")
	}
}

// Two ids that differ only by case are two images, and their file names differ even
// for a file system that ignores case: no DirName has an upper-case letter. The
// mapping goes both ways, and names it does not make are not images.
func TestDirName(t *testing.T) {
	ids := []string{"IMG_1234", "img_1234", "Img_1234", "iMG_1234", "a", "A", "0F8FAD5B-d9cb"}
	seen := map[string]string{}
	for _, id := range ids {
		d := DirName(id)
		if strings.ToLower(d) != d {
			t.Errorf("DirName(%q) = %q has upper case", id, d)
		}
		if other, ok := seen[d]; ok {
			t.Errorf("DirName(%q) = DirName(%q) = %q", id, other, d)
		}
		seen[d] = id
		if back, ok := IDFromDirName(d); !ok || back != id {
			t.Errorf("IDFromDirName(%q) = %q, %v; want %q", d, back, ok, id)
		}
	}
	if DirName("img_1234") != "img_1234" {
		t.Error("a lower-case id is not its own DirName: older workspaces would lose their images")
	}
	for _, name := range []string{"Img", "+", "img+", "+1", "++a", ".tmp-init-1", "a b"} {
		if id, ok := IDFromDirName(name); ok {
			t.Errorf("IDFromDirName(%q) = %q, want no image", name, id)
		}
	}
}

// An image whose id has upper case is stored, listed and read back under that id.
func TestStoreImageIDCase(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a-", "aB", "IMG_1234", "img_1234"} {
		if _, err := s.Init(id, State{Entries: []Entry{}}, nil); err != nil {
			t.Fatalf("Init(%s): %v", id, err)
		}
	}
	ids, err := s.ListImages()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "IMG_1234,a-,aB,img_1234" {
		t.Errorf("ListImages = %v, want [IMG_1234 a- aB img_1234]", ids)
	}
	if _, err := s.Head("Img_1234"); darkroom.Code(err) != darkroom.NotFound {
		t.Errorf("Head(Img_1234): %v, want not_found", err)
	}
}
