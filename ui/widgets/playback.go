package widgets

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Replay speeds offered by the players; 1x plays replaySpeed1x steps per second.
var replaySpeeds = []string{"0.25x", "0.5x", "1x", "2x", "4x", "8x"}

const replaySpeed1x = 5.0

// parseSpeed reads one of replaySpeeds ("0.25x" -> 0.25); anything else is 1.
func parseSpeed(s string) float64 {
	var v float64
	if _, err := fmt.Sscanf(s, "%gx", &v); err != nil || v <= 0 {
		return 1
	}
	return v
}

// playback advances a player until advance returns false or stop is closed. Every
// 1/(replaySpeed1x×speed()) seconds it runs advance on the UI goroutine, reading the speed in the
// same hop, so a speed change applies from the next step. Call it and close stop on the UI
// goroutine (it used to hop to the UI goroutine itself for the first interval: fyne.DoAndWait
// from the UI goroutine, which fyne reports and, once fyne.Do is the only way, deadlocks).
// The returned channel is closed once the playback goroutine has made its last call.
func playback(stop <-chan struct{}, speed func() float64, advance func() bool) <-chan struct{} {
	done := make(chan struct{})
	interval := func() time.Duration {
		return time.Duration(float64(time.Second) / (replaySpeed1x * max(speed(), 0.25)))
	}
	wait := interval()
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(wait):
			}
			more := false
			fyne.DoAndWait(func() {
				select {
				case <-stop: // stopped while this step was queued
				default:
					more, wait = advance(), interval()
				}
			})
			if !more {
				return
			}
		}
	}()
	return done
}

// TogglePlay starts or pauses playback.
func (v *FrameViewer) TogglePlay() {
	if v.play != nil {
		v.Pause()
		return
	}
	if v.Len() == 0 {
		return
	}
	if v.index >= v.Len()-1 {
		v.Seek(0)
	}
	v.play = make(chan struct{})
	v.playBtn.SetIcon(theme.MediaPauseIcon())
	v.playDone = playback(v.play, func() float64 { return v.speed }, func() bool {
		if v.index >= v.Len()-1 {
			v.Pause()
			return false
		}
		v.Seek(v.index + 1)
		return true
	})
}

// Pause stops playback.
func (v *FrameViewer) Pause() {
	if v.play != nil {
		close(v.play)
		v.play = nil
		v.playBtn.SetIcon(theme.MediaPlayIcon())
	}
}

// PlaybackDone is closed once the last playback's goroutine has ended (at once when none ran):
// after it, nothing but the UI goroutine touches the viewer.
func (v *FrameViewer) PlaybackDone() <-chan struct{} {
	if v.playDone == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return v.playDone
}

// Playing reports whether playback runs.
func (v *FrameViewer) Playing() bool { return v.play != nil }

func (v *FrameViewer) CreateRenderer() fyne.WidgetRenderer {
	return &frameViewerRenderer{v: v}
}
