// Package explorer is the Explorer workspace: every episode in the store, whatever its source,
// in a virtualised table (table.go) with filters and search (filters.go), the selected episode's
// steps and frames (detail.go), statistics of the selection (stats.go), splits (splits.go),
// scoring of model predictions with saved runs and failing steps (scoring*.go, failures.go), and
// imports and exports behind a progress dialog (jobs.go).
package explorer
