package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// An episode read streamed (more steps than streamAbove) is stored as it is when read whole:
// every table an import writes, the same.
func TestOdysseyStreamedEpisodeStoresTheSame(t *testing.T) {
	dir := t.TempDir()
	ann := filepath.Join(dir, "annotations")
	os.MkdirAll(ann, 0o755)
	for e, n := range []int{40, 2500, 7} {
		id := fmt.Sprintf("ep%d", e)
		b := fmt.Appendf(nil, `{"episode_id":%q,"device_info":{"device_name":"Pixel 8 Pro","w":1344,"h":2992},"task_info":{"category":"Web_Shopping","app":["eBay"],"meta_task":"m","task":"t","instruction":"i"},"step_length":%d,"steps":[`, id, n)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			action, info := "CLICK", fmt.Sprintf("[[%d,500]]", i%1000)
			if i%211 == 9 {
				action, info = "SCROLL", "[[500,800],[500,200]]"
			} else if i%307 == 1 {
				action, info = "TYPE", `"milk"`
			}
			b = fmt.Appendf(b, `{"step":%d,"screenshot":"%s_%d.png","action":%q,"info":%s,"ps":null,"sam2_bbox":[1,2,3,4]}`, i, id, i, action, info)
		}
		if err := os.WriteFile(filepath.Join(ann, id+".json"), append(b, "]}"...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dump := func(above int) string {
		defer func(old int) { streamAbove = old }(streamAbove)
		streamAbove = above
		s := openTemp(t)
		res := importOdyssey(t, s, dir, OdysseyImportOptions{})
		if res.Steps != 2547 {
			t.Fatalf("%d steps imported", res.Steps)
		}
		return stripImports(dumpOdyssey(t, s))
	}
	whole, streamed := dump(0), dump(100)
	if whole != streamed {
		t.Errorf("streamed import differs from the whole one:\n%s\nwant\n%s", firstDiff(streamed, whole), firstDiff(whole, streamed))
	}
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-200):min(len(a), i+200)]
}
