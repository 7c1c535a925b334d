package widgets

import (
	"image"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
)

// BenchmarkDemonstrationsStep1080x2400 steps through a resaved file's 1080x2400 screens in the
// viewer as the workspace shows them (frames converted from the pickle's arrays): "prefetched"
// is holding the Right key (the next frames were converted while one was on show), "cold" a
// jump to a frame not converted yet.
func BenchmarkDemonstrationsStep1080x2400(b *testing.B) {
	test.NewTempApp(b)
	const w, h, n = 1080, 2400, 6
	u1, _ := mobileenv.NewDType("u1")
	traj := &mobileenv.List{}
	for j := 0; j < n; j++ {
		obs := make([]byte, w*h*3)
		for i := range obs {
			obs[i] = byte(i/4096 + j*40)
		}
		rec := &mobileenv.Dict{}
		if j == 0 {
			rec.Set("task_id", mobileenv.NewStr("demo_task-1"))
		} else {
			rec.Set("action_type", int64(j%4))
			rec.Set("reward", int64(0))
		}
		rec.Set("observation", &mobileenv.NDArray{DType: u1, Shape: []int{h, w, 3}, Data: obs})
		rec.Set("view_hierarchy", mobileenv.NewStr(`<hierarchy><node text="Search"/></hierarchy>`))
		traj.Items = append(traj.Items, rec)
	}
	meta := &mobileenv.Dict{}
	meta.Set("task_definition_id", mobileenv.NewStr("demo_task"))
	root := &mobileenv.Dict{}
	root.Set("meta", meta)
	root.Set("trajectories", &mobileenv.List{Items: []any{traj}})
	data, err := mobileenv.Encode(root)
	if err != nil {
		b.Fatal(err)
	}
	f, err := mobileenv.Parse("bench.pkl", data)
	if err != nil {
		b.Fatal(err)
	}
	ep, err := f.Episode(0, mobileenv.EpisodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	load := func(s *episode.Step) (image.Image, error) { return f.StepImage(0, s.Index) }
	for _, cold := range []bool{false, true} {
		name := "prefetched"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			v := NewFrameViewer()
			win := test.NewWindow(v)
			defer win.Close()
			win.Resize(fyne.NewSize(900, 1000))
			v.run = func(f func()) { f() } // prefetch completes before the next step, as at human pace
			if cold {
				v.run = func(func()) {}
			}
			v.SetEpisode(&ep, load)
			for i := 0; b.Loop(); i++ {
				if cold {
					v.cache = newFrameCache(0)
				}
				v.Seek((i + 1) % n)
			}
		})
	}
}
