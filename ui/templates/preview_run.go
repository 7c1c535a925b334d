package templates

import (
	"context"
	"strings"
	"testing/fstest"
	"time"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Running the preview: a snapshot of the editor, scheduled after typing pauses, rendered off the UI goroutine, the newest result kept.

// snapshot copies the buffers for a preview computed off the UI goroutine.
func (w *Workspace) snapshot() previewInput {
	in := previewInput{files: fstest.MapFS{}, templatesDir: w.templatesDir}
	for _, f := range w.files {
		in.files[f.rel] = &fstest.MapFile{Data: []byte(f.buf), Mode: 0o644}
	}
	if w.pv != nil {
		in.task = w.pv.task.Selected
		if rel := strings.TrimSpace(w.pv.output.Text); rel != "" && w.dir != "" {
			in.output = w.abs(rel)
		}
	}
	return in
}

// schedulePreview recomputes the preview after the debounce delay (typing), off the UI
// goroutine, and shows it unless a newer edit came in meanwhile.
func (w *Workspace) schedulePreview() {
	if w.pv == nil {
		return
	}
	w.gen++
	gen := w.gen
	// The buffers are copied once the typing pauses, not on every keystroke.
	w.debounce(func() {
		fyne.Do(func() {
			if gen == w.gen {
				w.startPreview(gen)
			}
		})
	})
}

// previewNow recomputes the preview at once (a folder opened, another task chosen).
func (w *Workspace) previewNow() {
	if w.pv == nil {
		return
	}
	w.gen++
	w.startPreview(w.gen)
}

// quickPreviewBytes bounds the folders whose task is instantiated on the UI goroutine, so that
// the preview shows with the rest of the workspace when a folder opens (the sample's is 6 KB
// and takes well under a millisecond); larger ones are instantiated in the background.
const quickPreviewBytes = 256 << 10

// startPreview computes the preview of generation gen in two steps: the instantiated task is
// shown as soon as it is ready (at once when the folder is small), then its diff against the
// saved output, computed off the UI goroutine; the spinner shows until both are done. A newer
// generation drops both.
func (w *Workspace) startPreview(gen int) {
	in := w.snapshot()
	w.pv.setBusy(true)
	finish := func(r previewResult) bool {
		if gen != w.gen {
			return false
		}
		w.pv.show(r)
		if r.diffed {
			w.pv.setBusy(false)
		}
		if !w.openedAt.IsZero() {
			w.logf("templates: %s opened, preview of %s shown after %v", w.dir, r.in.task, time.Since(w.openedAt).Round(time.Millisecond))
			w.openedAt = time.Time{}
		}
		return !r.diffed
	}
	diff := func(r previewResult) {
		workspace.Start(w.host, &w.preview, func(context.Context) (previewResult, error) {
			return diffPreview(r), nil
		}, func(r previewResult, _ error) { finish(r) })
	}
	size := 0
	for _, f := range in.files {
		size += len(f.Data)
	}
	if size <= quickPreviewBytes {
		w.preview.Cancel()
		if r := expandPreview(in); finish(r) {
			diff(r)
		}
		return
	}
	workspace.Start(w.host, &w.preview, func(context.Context) (previewResult, error) {
		return expandPreview(in), nil
	}, func(r previewResult, _ error) {
		if finish(r) {
			diff(r)
		}
	})
}
