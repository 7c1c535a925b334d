// Package demonstrations is the Demonstrations workspace: a Mobile-Env annotation pickle's
// trajectories in the shared frame viewer, edited by pointing and clicking (edits.go) as pending
// edits that save through the same code as `agentdesk pickle edit` (files.go), with what is on
// show kept in trajectories.go. Opening and editing large files run behind a busy bar.
//
// Layout (Label Studio's and CVAT's: the item list, the frame, the editing panel side by side):
// one line of file buttons above the content with the file's state ("● 2 edits not saved",
// "✓ Saved"); below it the trajectories, the frame with its step controls under it taking the
// height, and the editing column (what the last action said at its top, the rest of the file's
// actions at its foot), which scrolls on a short window while the frame does not.
package demonstrations
