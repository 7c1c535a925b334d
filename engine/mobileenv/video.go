package mobileenv

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
	_ "image/jpeg" // frames are read back from JPEG
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
)

// VideoOptions tunes Video.
type VideoOptions struct {
	VisualizeOptions
	// FPS is the frame rate (0: 2, as the original script).
	FPS int
	// Format is "mp4" (through ffmpeg), "gif" (native) or "" (mp4 when ffmpeg is on PATH,
	// otherwise gif).
	Format string
	// FFmpeg is the ffmpeg executable ("" looks it up on PATH).
	FFmpeg string
	// VideoProgress, when not nil, is told how many trajectory folders are made into videos
	// (or skipped: one without frames gets none) and their number: before each, and once all
	// are. It is called on Video's goroutine once the frames are drawn
	// (VisualizeOptions.Progress reports those).
	VideoProgress func(done, total int)
}

// Video exports the frames of every trajectory (Visualize) and turns each folder into a video
// next to it: <folder>.mp4 with ffmpeg (the original make_video_from_pickle.sh runs
// `ffmpeg -y -framerate 2 -i <folder>/%d.jpg <folder>.mp4`; here the arguments are passed
// without a shell, so paths with spaces work, and the '%' of the folder name is escaped for
// ffmpeg's pattern), or <folder>.gif written natively when ffmpeg is not available. Trajectories
// without frames (one record) get no video. It returns the video files.
//
// ctx stops it: while frames are drawn as VisualizeContext says; then before each video, and
// an ffmpeg run it interrupts leaves no video file (a partial one is removed). The videos
// returned are complete.
func Video(ctx context.Context, pklPath, videoPath string, opts VideoOptions) ([]string, error) {
	fps := opts.FPS
	if fps <= 0 {
		fps = 2
	}
	ff := opts.FFmpeg
	format := opts.Format
	if format == "" || format == "mp4" {
		if ff == "" {
			ff, _ = exec.LookPath("ffmpeg")
		}
		if ff == "" {
			if format == "mp4" {
				return nil, fmt.Errorf("ffmpeg not found on PATH")
			}
			format = "gif"
		} else {
			format = "mp4"
		}
	}
	if format != "mp4" && format != "gif" {
		return nil, fmt.Errorf("unknown video format %q", format)
	}
	// Drawn only once the format and ffmpeg are known: a missing ffmpeg used to be found after
	// every frame was written, leaving folders that make the next run fail.
	folders, err := VisualizeContext(ctx, pklPath, videoPath, opts.VisualizeOptions)
	if err != nil {
		return nil, err
	}
	ext := ".jpg"
	if opts.PNG {
		ext = ".png"
	}
	var out []string
	for i, folder := range folders {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if opts.VideoProgress != nil {
			opts.VideoProgress(i, len(folders))
		}
		if _, err := os.Stat(filepath.Join(folder, "1"+ext)); os.IsNotExist(err) {
			continue // a one-record trajectory has no frames: no video (ffmpeg would fail on it)
		}
		switch format {
		case "mp4":
			target := folder + ".mp4"
			pattern := filepath.Join(strings.ReplaceAll(folder, "%", "%%"), "%d"+ext)
			cmd := exec.CommandContext(ctx, ff, "-y", "-loglevel", "error", "-framerate", fmt.Sprint(fps), "-i", pattern, "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", target)
			if msg, err := cmd.CombinedOutput(); err != nil {
				os.Remove(target) // what a failed or interrupted ffmpeg wrote is no video
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				return out, fmt.Errorf("ffmpeg for %s: %v: %s", folder, err, bytes.TrimSpace(msg))
			}
			out = append(out, target)
		case "gif":
			target := folder + ".gif"
			if err := framesToGIF(ctx, folder, ext, fps, target); err != nil {
				return out, err
			}
			out = append(out, target)
		}
	}
	if opts.VideoProgress != nil && len(folders) > 0 {
		opts.VideoProgress(len(folders), len(folders))
	}
	return out, nil
}

// framesToGIF writes <folder>/1<ext>, 2<ext>, ... as an animated GIF (whole or not at all:
// ctx stops it between frames, before anything is written).
func framesToGIF(ctx context.Context, folder, ext string, fps int, target string) error {
	g := &gif.GIF{}
	delay := 100 / fps
	for j := 1; ; j++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := os.Open(filepath.Join(folder, fmt.Sprintf("%d%s", j, ext)))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			return err
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			return err
		}
		g.Image = append(g.Image, toPaletted(img))
		g.Delay = append(g.Delay, delay)
	}
	if len(g.Image) == 0 {
		return nil // an empty trajectory gives no video (ffmpeg fails on it too)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		return err
	}
	return atomicfile.Write(target, b.Bytes(), 0o644)
}

func toPaletted(img image.Image) *image.Paletted {
	p := image.NewPaletted(img.Bounds(), palette.Plan9)
	draw.FloydSteinberg.Draw(p, img.Bounds(), img, img.Bounds().Min)
	return p
}
