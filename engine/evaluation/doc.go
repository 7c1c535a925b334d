// Package evaluation is the domain of the Evaluation workspace: local human-evaluation sessions
// of chatbot dialogues in the manner of the ChatEvaluationPlatform behind the ABC-Eval study
// (specs/evaluation.md). It has no UI and no SQL: the store persists the values defined here and
// the UI shows them; every rule lives in this package as a pure function where it can.
//
// # Projects and their parts
//
// A [Project] holds everything one evaluation needs:
//
//   - [AnnotationType]: a named question set with a [Display] mode (the original's nine
//     configs: button_flow, nondetails_button_flow, nondetails_nonhelp_button_flow, multiselect,
//     likert-5-turn, likert-5-dialogue, comparative, foreach-5-select-dialogue and the
//     renderer-less foreach-5-select), an [Indices] rule choosing the annotatable turns, an
//     optional [Requirement] deciding when Next is enabled, and the mode's options: a [Flow]
//     (question flows), [Choice] lists (multiselect, foreach), [Scale] items (Likert) or
//     comparison options.
//   - [Bundle]: one line of a data file, the [Datapoint]s shown inside one unit. A datapoint is a
//     dialogue ([Turn]s; a second dialogue for comparative pairs) with the names of the types to
//     apply to it.
//   - Units per bundle ([Project.Units], looked up by the first datapoint's group id, or
//     [Settings.DefaultUnits]).
//   - [Training]: three onboarding dialogues with ground truth ([Truth]) and explanations; and
//     gold bundles graded the same way.
//   - [Settings]: the relevant keys of the original's hydra configuration (modes, timeouts,
//     screening, golds, collection).
//   - [BotSpec]s for dialogue collection.
//
// A project comes from one of four places: [ImportOriginal] reads a ChatEvaluationPlatform
// project folder as it is (its Hydra configuration composed with its defaults lists and the
// command line's [Override]s, the participants' instructions read from the original's
// task_descriptions.jsx by [ReadTaskDescriptions] without running it) and returns an
// [ImportReport] saying precisely what was understood and what was ignored, and what became of
// every file of the folder (read, named by another configuration, ignored); [LoadProject] reads
// the app's own TOML project file (written by [SaveProject]); [CatalogueProject] builds one from
// the built-in ABC-Eval catalogue ([Catalogue]) over the user's own dialogues; and
// [CollectionChoice] makes a dialogue-collection project from bots and conditions.
// [ExportOriginal] writes a project back in the original folder layout.
//
// # Answers
//
// All types applied to one dialogue write into one [Answers] object (the original's
// annotations["<i>"]): per-turn entries in [Answers.Data] keyed by the turn position as a
// string ([TurnAnswers], which always carry turn_idx, text and agent_idx), and dialogue-level
// maps for Likert, comparative and rating answers. [ApplyFlowClick] performs a click on a flow
// answer with the original's clean-up of sub-questions; [IsComplete] says whether Next/Submit is
// enabled; [GradeTurn], [GradeDialogue], [GradeTraining] and [GradeGold] grade answers against
// ground truth with the original's rules ([Compatible] grading keeps the original's
// short-circuit on missing "" keys, [Strict] checks every key); [Truth.CorrectSelection] is the
// answer shown as "correct selection" in feedback.
//
// # Sessions
//
// [NextUnit] is the original's deterministic first-fit unit assignment as a pure function over
// an [AssignmentState] the store persists; [UnitOrder] shuffles a unit's datapoints and their
// types with a recorded seed; [TrainingFlow] walks a participant through screening (feedback,
// correction, pass rule, block). [ParseConditions], [ChooseCondition], [OfflineGroups] and
// [Chat] run dialogue collection with [Bot]s ([EchoBot], exec bots and OpenAI-compatible http
// bots, see [NewBot] for the exec protocol; with include_persona a session draws a persona,
// [ChoosePersona], that blender bots observe ahead of the opening "Hi!", [BotRequest.Observations]);
// a failing bot returns a [*BotError] and the
// conversation stays as it was, so the reply can be retried. Bots holding a process implement
// io.Closer ([CloseBot]).
//
// # Results
//
// A unit's answers live in an [AnswerState] (the original's answer-state object, durations
// included). The store fills [AttemptResult]s and [AssignmentResult]s; [WriteAssignment] and
// [StateJSON] write the original's assign_data.json and state.json (with final_chat_data for
// collection, [FinalChatData]), which [ReadStateFile] reads back; [AnswerRows], [WriteCSV]
// and [WriteJSONL] give flat exports, and [Pseudonyms] replaces participant names.
package evaluation
