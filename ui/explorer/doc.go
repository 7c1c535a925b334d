// Package explorer is the Explorer workspace: every episode in the store, whatever its source,
// in a virtualised table (table.go) with filters and search (filters.go), the selected episode's
// steps and frames (detail.go), statistics of the selection (stats.go), splits (splits.go),
// scoring of model predictions with saved runs and failing steps (scoring*.go, failures.go), and
// imports and exports behind a progress dialog (jobs.go).
//
// Layout (the pattern of CVAT's and Rerun's frame viewers, and of VS Code's sidebar): no
// toolbar stacks above the content. The tab bar carries the dataset's import and export at its
// empty end; in the Episodes tab the listing is a column of its own (search line, filters
// folded away behind a Filters button, table, status) and the selected episode takes the rest:
// the frame as tall as the window allows with the timeline and step controls under it, and
// beside it a column with the step's captions, the episode's texts and the step thumbnails.
// At 1024x700 the frame is over 300 px tall with its controls in view; at 1920x1080 it grows
// with the window.
package explorer
