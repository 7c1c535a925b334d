package evaluation

import (
	"encoding/json"
	"time"
)

// The records below are what the store keeps of a project's sessions and what the workspace
// and the command line read back: one declaration, used by store, ui and app alike.

// Unit kinds (UnitRecord.Kind, ImportedAttempt.Kind).
const (
	UnitTask       = "task"
	UnitScreening  = "screening"
	UnitGold       = "gold"
	UnitCollection = "collection"
)

// UnitOpen is the status of a stored unit nobody holds (UnitRecord.Status; the assignment
// state leaves open units out).
const UnitOpen UnitStatus = "open"

// ProjectSummary is one stored evaluation project with its progress, for the project list.
type ProjectSummary struct {
	ID     int64
	Name   string
	Origin string // "imported" or "created"
	// Source is the folder the project was imported from ("" when created in the app).
	Source string
	// Report is the import's understood/ignored report.
	Report    string
	CreatedAt time.Time
	// Units counts annotator slots (collection sessions); Done those completed, Assigned those
	// held by a participant and not completed.
	Units, Done, Assigned int
	Participants          int
}

// UnitRecord is one annotator slot of an assignment, or a screening or gold unit, with the
// participant's answers so far.
type UnitRecord struct {
	ID           int64
	ProjectID    int64
	AssignmentID int64 // 0 for screening units
	// Position is the assignment's position in the data file; Index the slot (-1 screening,
	// -2 gold).
	Position, Index int
	GroupID         string
	// Kind is UnitTask, UnitScreening, UnitGold or UnitCollection.
	Kind          string
	Status        UnitStatus
	ParticipantID int64
	Participant   string
	// Bundle is the assignment's datapoints as JSON (the data file's "data" list).
	Bundle json.RawMessage
	// Shown is the order the participant sees (recorded on first start), State the answer
	// state in the original's shape, Result the graded outcome (screening, gold); JSON.
	Shown, State, Result json.RawMessage
	// Where the session resumes: datapoint, type and turn.
	LastIndex, LastAnnot, LastTurn int
	AssignedAt, CompletedAt        time.Time
	UpdatedAt                      time.Time
}

// AnswerRecord is one answer as it was given: a click on a flow answer, a Likert value, a
// multiselect selection. Value nil records a cleared answer.
type AnswerRecord struct {
	UnitID        int64
	ParticipantID int64
	// DialoguePos and TypePos are the page: the datapoint's and the type's positions in the
	// shown order.
	DialoguePos, TypePos int
	TypeName             string
	// Turn is the dialogue position, -1 for a dialogue-level answer.
	Turn     int
	Question string
	Value    any
	// AnsweredAt is when it was given, PageShownAt when its page was shown; the time spent is
	// the difference.
	AnsweredAt, PageShownAt time.Time
}

// Position is where a session is: the page (datapoint, type) and the focused turn.
type Position struct {
	Index, Annot, Turn int
}

// ParticipantSummary is one participant of a project with their progress and qualifications.
type ParticipantSummary struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	// Assigned counts units held and not completed, Done units completed (task and collection
	// units; screening and gold are reported through Qualifications and Screening).
	Assigned, Done int
	// Qualifications are named flags (the screening's passed and block qualifications, ...).
	// They are shared by name across projects, as the original's: a participant of the same
	// name holds them in every project (the latest grant wins).
	Qualifications map[string]int
	// QualificationsFrom names, for a qualification granted in another project, that project.
	QualificationsFrom map[string]string
	// Screening is the latest screening unit's status: "", "open", "passed" or "failed".
	Screening string
	// Model is the model a model annotator asks (eval annotate), "" for a person; ModelURL
	// the server it was asked at.
	Model, ModelURL string
}

// IsModel says whether the participant is a model annotator.
func (p ParticipantSummary) IsModel() bool { return p.Model != "" }

// ConversationRecord is one stored chat of a collection unit with one bot.
type ConversationRecord struct {
	ID     int64
	UnitID int64
	// Position is the conversation's place in the session (0 for the first bot).
	Position  int
	Condition string
	Model     string
	StartedAt time.Time
	EndedAt   time.Time // zero while the conversation is going on
	Turns     []TurnRecord
	Errors    []BotFailure
}

// TurnRecord is one stored message of a conversation: agent 0 the participant, 1 the bot.
type TurnRecord struct {
	Idx       int
	AgentIdx  int
	Text      string
	FakeStart bool
	SentAt    time.Time
	// Latency is how long the bot took to reply (0 for the participant's messages).
	Latency time.Duration
}

// BotFailure is a bot's failure to reply (timeout, crash, refused connection), kept with the
// conversation.
type BotFailure struct {
	Turn    int
	Message string
	At      time.Time
}

// NewAssignment is one bundle of a project to create with its number of units.
type NewAssignment struct {
	GroupID string
	Bundle  json.RawMessage
	// Data, when set, is the bundle to store instead of Bundle: the store writes its JSON
	// (WriteBundleJSON) a part at a time, so a large one is never held whole as JSON.
	Data  *Bundle
	Units int
}

// ImportedAttempt is one finished attempt read from result files in the original's layout.
type ImportedAttempt struct {
	// File names the result file, for errors.
	File        string
	Participant string
	// Kind is UnitTask (Position is the bundle's position in the data file) or UnitScreening.
	Kind     string
	Position int
	// Shown is the unit order (UnitOrder as JSON), State the final answer state, Result the
	// outcome (screening: mistakes and success).
	Shown, State, Result json.RawMessage
	CompletedAt          time.Time
	// Grant are the qualifications the attempt gives (the screening's passed or block).
	Grant map[string]int
}

// Serving is what serving a project to browsers keeps in the store: the secret that signs its
// links and forms, and the generation of its study link (raised to revoke it).
type Serving struct {
	Secret          []byte
	StudyGeneration int
	// Recruiting is false once recruitment is closed: the study link admits no new ids, and
	// participants in progress finish.
	Recruiting bool
	// StudyFloor is the oldest study link generation honoured for participants in progress
	// (revoking the study link keeps them; evicting raises the floor to the new generation).
	StudyFloor int
}

// Eviction is what evicting a study link's participants did.
type Eviction struct {
	// Participants are the ids that had come in through the study link; Units the units they
	// held, now back in the pool (their answers dropped; the answer log keeps them).
	Participants, Units int
}

// LinkRecord is what the store keeps of a participant's links: their generation (raised to
// revoke them) and, for a participant who came through the study link, a hash of the browser
// they are bound to.
type LinkRecord struct {
	Generation int
	Browser    string
	// Personal is set once a personal link was made for the id: it is then usable only
	// through that link.
	Personal bool
}
