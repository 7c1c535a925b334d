package evaluation

import (
	"context"
	"github.com/agentdesk/agentdesk/ui/web"

	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the Evaluation workspace reads from and writes to the store:
// projects, participants, assignments, answers and conversations.
type Store interface {
	// web.Store: what a study session and a served study read and write.
	web.Store
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

	SetEvalQualification(ctx context.Context, participantID int64, name string, value int) error
	RevokeEvalQualification(ctx context.Context, participantID int64, name string) error

	EvalUnit(ctx context.Context, id int64) (ev.UnitRecord, error)
	EvalUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error)
	EvalAnswers(ctx context.Context, unitID int64) ([]ev.AnswerRecord, error)

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
