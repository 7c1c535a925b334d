package evaluation

import "time"

// ModelError is a page a model annotator left unanswered (the store keeps them).
type ModelError struct {
	UnitID      int64
	DialoguePos int
	TypeName    string
	Asks        int
	Message     string
	Reply       string
	At          time.Time
}
