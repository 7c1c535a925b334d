package mobileenv

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestVideoFFmpeg runs the mp4 path end to end with the real ffmpeg: the original folder names
// (with ':', '%' and '#', the '%' escaped for ffmpeg's pattern) under a folder with a space,
// then ffprobe checks each video's frame count, size, frame rate and pixel format, and each
// decoded frame must resemble the frame of the same number most (H.264 is lossy, so this checks
// order and content, not pixels).
func TestVideoFFmpeg(t *testing.T) {
	ff, err1 := exec.LookPath("ffmpeg")
	probe, err2 := exec.LookPath("ffprobe")
	if err1 != nil || err2 != nil {
		t.Skip("ffmpeg/ffprobe not on PATH: the mp4 export is not exercised here (scripts/deps.sh test installs ffmpeg)")
	}
	pkl := filepath.Join(areaDir(t), "pickles/inputs/synthetic_visual.pkl")
	out := filepath.Join(t.TempDir(), "with space", "videos")
	var stdout bytes.Buffer
	vids, err := Video(context.Background(), pkl, out, VideoOptions{Format: "mp4", FFmpeg: ff,
		VisualizeOptions: VisualizeOptions{Stdout: &stdout}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		frames int
	}{{"demo_task:0%2#5.mp4", 4}, {"demo_task:1%2#2.mp4", 1}}
	if len(vids) != len(want) {
		t.Fatalf("videos %v, want %d", vids, len(want))
	}
	f, err := Open(pkl)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if filepath.Base(vids[i]) != w.name {
			t.Errorf("video %d is %s, want %s", i, filepath.Base(vids[i]), w.name)
		}
		info := ffprobeStream(t, probe, vids[i])
		t.Logf("%s: %+v", w.name, info)
		if info.Frames != w.frames || info.Width != 180 || info.Height != 720 || info.Rate != "2/1" || info.PixFmt != "yuv420p" {
			t.Errorf("%s: %+v, want %d frames of 180×720 at 2/1 fps in yuv420p", w.name, info, w.frames)
		}
		// every decoded frame is closest to the frame with the same number
		decoded := ffmpegFrames(t, ff, vids[i])
		if len(decoded) != w.frames {
			t.Fatalf("%s: decoded %d frames, want %d", w.name, len(decoded), w.frames)
		}
		for j, img := range decoded {
			best, bestPSNR := 0, -1.0
			for k := 1; k <= w.frames; k++ {
				rec, err := f.Record(i, k)
				if err != nil {
					t.Fatal(err)
				}
				frame, _, err := RenderFrame(f.DefinitionID(), rec, FrameOptions{})
				if err != nil {
					t.Fatal(err)
				}
				_, psnr, err := compareImages(img, frame)
				if err != nil {
					t.Fatal(err)
				}
				if psnr > bestPSNR {
					best, bestPSNR = k, psnr
				}
			}
			t.Logf("%s frame %d: closest to frame %d (PSNR %.1f dB)", w.name, j+1, best, bestPSNR)
			if best != j+1 {
				t.Errorf("%s: decoded frame %d looks most like frame %d (PSNR %.1f dB)", w.name, j+1, best, bestPSNR)
			}
		}
	}
}

type probedStream struct {
	Frames        int
	Width, Height int
	Rate, PixFmt  string
}

func ffprobeStream(t *testing.T, probe, path string) probedStream {
	t.Helper()
	out, err := exec.Command(probe, "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height,r_frame_rate,pix_fmt", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var res struct {
		Streams []struct {
			Frames string `json:"nb_read_frames"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
			Rate   string `json:"r_frame_rate"`
			PixFmt string `json:"pix_fmt"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Streams) != 1 {
		t.Fatalf("ffprobe %s: %v %s", path, err, out)
	}
	s := res.Streams[0]
	n, err := strconv.Atoi(s.Frames)
	if err != nil {
		t.Fatalf("ffprobe %s: frames %q", path, s.Frames)
	}
	return probedStream{Frames: n, Width: s.Width, Height: s.Height, Rate: s.Rate, PixFmt: s.PixFmt}
}

// ffmpegFrames decodes every frame of a video to PNG and reads them back.
func ffmpegFrames(t *testing.T, ff, path string) []image.Image {
	t.Helper()
	dir := t.TempDir()
	if msg, err := exec.Command(ff, "-v", "error", "-i", path, filepath.Join(dir, "%d.png")).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg decode %s: %v %s", path, err, msg)
	}
	var imgs []image.Image
	for j := 1; ; j++ {
		p := filepath.Join(dir, strconv.Itoa(j)+".png")
		if _, err := os.Stat(p); err != nil {
			break
		}
		imgs = append(imgs, decodeFile(t, p))
	}
	return imgs
}

// TestVideoFFmpegMissing: asking for mp4 with an ffmpeg that does not exist is a clear error,
// not a silent GIF.
func TestVideoFFmpegMissing(t *testing.T) {
	pkl := filepath.Join(areaDir(t), "pickles/inputs/synthetic_visual.pkl")
	_, err := Video(context.Background(), pkl, filepath.Join(t.TempDir(), "v"), VideoOptions{Format: "mp4", FFmpeg: filepath.Join(t.TempDir(), "no-ffmpeg")})
	if err == nil {
		t.Fatal("mp4 export with a missing ffmpeg succeeded")
	}
}

// TestVideoFFmpegSkipsEmptyTrajectory: a one-record trajectory exports an empty folder and no
// video (the original script's ffmpeg fails on it), in the mp4 path as in the GIF path.
func TestVideoFFmpegSkipsEmptyTrajectory(t *testing.T) {
	ff, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not on PATH: the mp4 export is not exercised here (scripts/deps.sh test installs ffmpeg)")
	}
	dir := t.TempDir()
	pkl := filepath.Join(dir, "demo_task.pkl")
	if err := os.WriteFile(pkl, mustRead(t, filepath.Join(areaDir(t), "pickles/inputs/synthetic_visual.pkl")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Edit(pkl, "1:delete:1:2", dir, EditOptions{}); err != nil {
		t.Fatal(err)
	}
	vids, err := Video(context.Background(), pkl, filepath.Join(dir, "v"), VideoOptions{Format: "mp4", FFmpeg: ff,
		VisualizeOptions: VisualizeOptions{SafeNames: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vids) != 1 || filepath.Base(vids[0]) != "demo_task_0of2_len5.mp4" {
		t.Errorf("videos %v, want only trajectory 0's", vids)
	}
	if _, err := os.Stat(filepath.Join(dir, "v", "demo_task_1of2_len1")); err != nil {
		t.Errorf("the empty trajectory's folder: %v", err)
	}
}
