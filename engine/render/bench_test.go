package render

import (
	"image"
	"testing"

	"github.com/agentdesk/agentdesk/engine/gridworld"
)

func benchPOVFrames(b *testing.B, w, h int) {
	r := testRenderer(b)
	built, _ := lookScene()
	st := gridworld.NewState(blocksOfGrid(&built, nil, nil), gridworld.Vec3{0.3, -0.25, 5.2}, 0, -25)
	pov := r.POV()
	var err error
	b.ReportAllocs()
	onMain(func() {
		for i := 0; i < b.N && err == nil; i++ {
			st.SetPose(gridworld.Vec3{0.3, -0.25, 5.2}, float64(i%360), -25)
			_, err = pov.RenderPOV(st, w, h)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkPOV64 is one 64×64 first-person frame including read-back.
func BenchmarkPOV64(b *testing.B) { benchPOVFrames(b, 64, 64) }

// BenchmarkPOV640x480 is one 640×480 first-person frame including read-back.
func BenchmarkPOV640x480(b *testing.B) { benchPOVFrames(b, 640, 480) }

// BenchmarkOrbit640x480 is one UI frame: orbit camera, ghost target, agent marker.
func BenchmarkOrbit640x480(b *testing.B) {
	r := testRenderer(b)
	built, target := lookScene()
	var err error
	dst := image.NewRGBA(image.Rect(0, 0, 640, 480))
	onMain(func() {
		for i := 0; i < b.N && err == nil; i++ {
			cam := DefaultOrbit()
			cam.Azimuth = float64(i % 360)
			_, err = r.RenderInto(Scene{Grid: &built, Target: &target, ShowTarget: true,
				Agent: &Pose{Position: gridworld.Vec3{3, -0.25, 4}}, Camera: cam, Width: 640, Height: 480}, dst)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkEnvStepPOV64 is one environment step (random discrete walking actions, bench
// task, automatic resets) with the 64×64 pov rendered.
func BenchmarkEnvStepPOV64(b *testing.B) {
	r := testRenderer(b)
	cfg := gridworld.EnvDefaults()
	cfg.ActionSpace, cfg.Discretize = gridworld.Walking, true
	cfg.Renderer = r.POV()
	cfg.Seed = 7
	env, err := gridworld.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	env.SetTask(gridworld.BenchTasks(1)[8].Task)
	b.ReportAllocs()
	onMain(func() {
		if _, err = env.Reset(); err != nil {
			return
		}
		b.ResetTimer()
		for i := 0; i < b.N && err == nil; i++ {
			var done bool
			_, _, done, err = env.Step(env.SampleAction())
			if done && err == nil {
				_, err = env.Reset()
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
