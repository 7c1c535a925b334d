// Package evaluation is the Evaluation workspace: human-evaluation studies of engine/evaluation
// at the desk. workspace.go lists, imports and creates projects; session.go and unit.go run a
// participant's session (sign-in, training, units page by page, page.go drawing a page with its
// keyboard in pagekeys.go and questions in pageflows.go); chat*.go collect dialogues with bots;
// dashboard.go and results.go show participants, agreement and rates, and export results.
package evaluation
