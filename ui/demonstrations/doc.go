// Package demonstrations is the Demonstrations workspace: a Mobile-Env annotation pickle's
// trajectories in the shared frame viewer, edited by pointing and clicking (edits.go) as pending
// edits that save through the same code as `agentdesk pickle edit` (files.go), with what is on
// show kept in trajectories.go. Opening and editing large files run behind a busy bar.
package demonstrations
