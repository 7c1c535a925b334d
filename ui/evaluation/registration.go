package evaluation

import (
	"context"
	"encoding/json"

	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the Evaluation workspace reads from and writes to the store:
// projects, participants, assignments, answers and conversations.
type Store interface {
	CreateEvalProject(ctx context.Context, name, origin, source, config, report string, assignments []ev.NewAssignment) (int64, error)
	// SaveEvalProject stores a project with its assignments in one transaction.
	SaveEvalProject(ctx context.Context, name, origin, source string, p *ev.Project, report string) (int64, error)
	EvalProject(ctx context.Context, id int64) (*ev.Project, error)
	// EvalResults returns the project with every assignment and attempt, for exports and
	// statistics.
	EvalResults(ctx context.Context, projectID int64) (*ev.Project, []ev.AssignmentResult, error)
	DeleteEvalProject(ctx context.Context, id int64) error
	EvalProjects(ctx context.Context) ([]ev.ProjectSummary, error)
	EvalProjectInfo(ctx context.Context, id int64) (ev.ProjectSummary, error)
	EvalProjectConfig(ctx context.Context, id int64) (string, error)
	// SetEvalProjectConfig replaces a project's definition (its bots edited), keeping its
	// units and answers.
	SetEvalProjectConfig(ctx context.Context, id int64, config string) error

	EvalSignIn(ctx context.Context, projectID int64, name string) (ev.ParticipantSummary, error)
	EvalParticipants(ctx context.Context, projectID int64) ([]ev.ParticipantSummary, error)
	EvalParticipant(ctx context.Context, projectID, id int64) (ev.ParticipantSummary, error)
	SetEvalQualification(ctx context.Context, participantID int64, name string, value int) error
	RevokeEvalQualification(ctx context.Context, participantID int64, name string) error

	EvalUnit(ctx context.Context, id int64) (ev.UnitRecord, error)
	EvalUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error)
	EvalHeldUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error)
	EvalUnitAt(ctx context.Context, projectID int64, kind string, position, index int) (ev.UnitRecord, error)
	EvalOpenUnit(ctx context.Context, participantID int64) (u ev.UnitRecord, ok bool, err error)
	EvalAssign(ctx context.Context, projectID, participantID, unitID int64, kind string, index int, shown, state json.RawMessage) (ev.UnitRecord, error)
	// EvalReturnUnit gives an open unit back to the pool (its answers dropped).
	EvalReturnUnit(ctx context.Context, unitID int64) error
	SaveEvalAnswer(ctx context.Context, a ev.AnswerRecord, state json.RawMessage, pos ev.Position) error
	SaveEvalProgress(ctx context.Context, unitID int64, state json.RawMessage, pos ev.Position) error
	CompleteEvalUnit(ctx context.Context, unitID int64, state, result json.RawMessage, grant map[string]int) error
	EvalAnswers(ctx context.Context, unitID int64) ([]ev.AnswerRecord, error)

	EvalStartConversation(ctx context.Context, unitID int64, position int, condition, model string) (int64, error)
	EvalAddTurn(ctx context.Context, conversationID int64, t ev.TurnRecord) error
	EvalAddBotError(ctx context.Context, conversationID int64, turn int, message string) error
	EvalEndConversation(ctx context.Context, conversationID int64) error
	EvalConversations(ctx context.Context, unitID int64) ([]ev.ConversationRecord, error)
	EvalChatCounts(ctx context.Context, projectID int64) (map[string]map[string]int, error)
	// Serving the study to browsers (ui/web).
	EvalServing(ctx context.Context, projectID int64) (ev.Serving, error)
	EvalLink(ctx context.Context, projectID int64, participant string) (ev.LinkRecord, error)
	RevokeEvalLinks(ctx context.Context, projectID int64, participant string) (int, error)
	RevokeEvalStudyLink(ctx context.Context, projectID int64) (int, error)
	BindEvalBrowser(ctx context.Context, projectID int64, participant, browser string) (bool, error)

	// ImportEvalAttempts stores finished attempts read from result files, in one transaction.
	ImportEvalAttempts(ctx context.Context, projectID int64, attempts []ev.ImportedAttempt) (int, error)
}

// NewRegistration describes the workspace to the shell; store returns the open store (nil:
// none) when the workspace is created.
func NewRegistration(store func() Store) workspace.Registration {
	return workspace.Registration{
		ID: workspace.Evaluation, Title: "Evaluation", Icon: theme.ListIcon(),
		Intro:   "Run local human-evaluation sessions: screening, likert, pairwise and per-turn labels, dialogue collection, agreement.",
		New:     func(h workspace.Host) workspace.Workspace { return New(h, workspace.Value(store)) },
		Summary: func(o episode.Overview) string { return widgets.Plural(o.EvalProjects, "evaluation project") },
	}
}
