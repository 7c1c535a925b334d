package samples

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The Evaluation sample: a project in Agentdesk's own TOML format over six short chats between
// a person and a chatbot, written for the samples and deliberately uneven (a good bot, a
// repetitive one, one that contradicts itself, one that ignores the question, one with wrong
// facts, one without empathy). Every chat is labelled turn by turn with four of the built-in
// catalogue's behaviour types and rated on three dialogue-level scales; the good and the
// repetitive chat, which start alike, are also compared side by side. Participants are
// screened first with three training chats for the consistency labels, graded against ground
// truth.

// EvaluationFile is the name of the project file inside Set.Evaluation (load it with
// evaluation.LoadProject).
const EvaluationFile = Marker + "ChatEvaluation.toml"

const (
	evalProjectName = Marker + " chat evaluation"
	evalTaskName    = Marker + "_chat_evaluation"
	// evalUnits is the number of annotators per bundle: the two sample annotators (EvalAnswers) and one for the user.
	evalUnits = 3
	// evalTrainingType is the type the screening trains: multiselect, so its ground truth is
	// the set of labels a turn should get.
	evalTrainingType = "consistency"
	// evalRatingsType is the project's own type: three dialogue-level scales in one.
	evalRatingsType = "dialogue_ratings"
)

// evalBehaviourTypes are the catalogue's behaviour types asked on every chatbot turn.
var evalBehaviourTypes = []string{"consistency", "relevance", "empathy", "facts"}

// evalRatingDimensions are the catalogue dimensions rated on the whole dialogue.
var evalRatingDimensions = []string{"relevant", "consistent", "quality"}

// evalCompareDimension is the catalogue dimension the pair is compared on.
const evalCompareDimension = "quality"

// chat is a dialogue written for the sample: alternating user and bot turns, user first.
type chat struct {
	id    string
	turns []string
}

// evalChats are the six dialogues to annotate. The first two start alike and form the pair.
var evalChats = []chat{
	{Marker + "-weekend-good", []string{
		"Hi! I finally have a free weekend and I'd like to get outside. Any ideas?",
		"A free weekend, lovely! Do you feel like something active, such as a hike, or something slower, like a picnic by a lake?",
		"A hike sounds good, but nothing too hard. I haven't walked much this year.",
		"Then choose a loop of eight to ten kilometres without much climbing, and start in the morning so there is time for breaks. Take water, a snack and a light jacket.",
		"Good idea. Should I go alone or ask a friend?",
		"Going with a friend is more fun and a little safer. If you go alone, tell someone your route and when you expect to be back.",
		"Thanks, I'll ask my neighbour, she loves walking.",
		"That sounds perfect. Have a lovely hike, and I hope the weather is kind to you both!",
	}},
	{Marker + "-weekend-repetitive", []string{
		"Hi! I finally have a free weekend and I'd like to get outside. Any ideas?",
		"You could go for a hike. Hiking is a great way to spend a weekend.",
		"A hike sounds good, but nothing too hard. I haven't walked much this year.",
		"Hiking is a great way to spend a weekend. You could go for a hike.",
		"Okay... Should I go alone or ask a friend?",
		"You could go for a hike with a friend. Hiking is a great way to spend a weekend.",
	}},
	{Marker + "-pets-contradiction", []string{
		"Do you have any pets?",
		"No, I've never had a pet. I'm allergic to fur, so I keep away from cats and dogs.",
		"Oh, what a pity. I have a cat called Pepper.",
		"Pepper is a sweet name! My dog loves cats too, they nap together every afternoon.",
		"Wait, I thought you didn't have any pets?",
		"Of course I do, I have two dogs and a cat. There have always been animals in my home.",
	}},
	{Marker + "-eggs-ignoring", []string{
		"How long should I boil an egg if I want the yolk still runny?",
		"I watched a great film last night about a chef in a small restaurant.",
		"Nice, but what about the egg? I'm standing in the kitchen right now.",
		"Do you like films? I think comedies are the best kind.",
		"Never mind, I'll look it up myself.",
		"Okay! Have a nice day.",
	}},
	{Marker + "-rome-wrong-facts", []string{
		"I'm going to Rome next month. What should I see?",
		"Rome is wonderful! Don't miss the Eiffel Tower, it stands right next to the Colosseum.",
		"Hmm, isn't the Eiffel Tower in Paris?",
		"It was moved to Rome a few years ago. You can also take a boat trip on the Thames, which runs through the old town.",
		"I really don't think that's right.",
		"The Trevi Fountain is a highlight too: people throw a coin over their shoulder into it so that they will come back to Rome.",
	}},
	{Marker + "-driving-test", []string{
		"I have my driving test tomorrow and I'm really nervous.",
		"Driving tests are easy. Most people pass.",
		"I failed the first time, so I'm scared it will happen again.",
		"Then you probably did something wrong. Just don't do it again.",
		"That doesn't really help...",
		"Anyway, what car do you drive?",
	}},
}

// trainingTurn is a turn of a training chat; bot turns carry the labels they should get and
// why.
type trainingTurn struct {
	text   string
	labels []string // consistency values expected on a bot turn (empty: none)
	why    string
}

// evalTraining are the three screening chats for the consistency labels, in order; the
// third is graded.
var evalTraining = [][]trainingTurn{
	{
		{text: "What did you have for breakfast?"},
		{text: "Toast with strawberry jam and a cup of tea.", why: "Nothing to mark: the reply answers the question and contradicts nothing."},
		{text: "Do you have toast every morning?"},
		{text: "I never eat bread, I can't stand it.", labels: []string{"self_contradiction"},
			why: "Toast is bread, and the chatbot has just said it had toast: it contradicts itself."},
	},
	{
		{text: "I grew up in Lisbon, but I live in Berlin now."},
		{text: "Berlin is a big city! How long have you lived there?", why: "Nothing to mark: a fitting follow-up question."},
		{text: "About three years."},
		{text: "Three years in Lisbon, how nice!", labels: []string{"partner_contradiction"},
			why: "The user has lived in Berlin for three years, not in Lisbon: the reply gets the partner wrong."},
		{text: "No, in Berlin."},
		{text: "Berlin is a big city! Berlin is a big city!", labels: []string{"redundant"},
			why: "The reply repeats, twice, what the chatbot already said, and adds nothing."},
	},
	{
		{text: "Do you like music?"},
		{text: "Yes, I love jazz, especially old piano records.", why: "Nothing to mark: an answer with a detail of its own."},
		{text: "Who is your favourite pianist?"},
		{text: "I don't really listen to jazz, I only like rock.", labels: []string{"self_contradiction"},
			why: "The chatbot said a moment ago that it loves jazz."},
		{text: "Oh. I mostly listen to rock as well."},
		{text: "So rock is not your thing, then?", labels: []string{"partner_contradiction"},
			why: "The user has just said they mostly listen to rock: the reply turns it round."},
		{text: "No, I said I like it!"},
		{text: "Sorry! Then we both like rock. Which band do you like best?", why: "Nothing to mark: it corrects itself and asks a fitting question."},
	},
}

func chatTurns(texts []string) []ev.Turn {
	turns := make([]ev.Turn, len(texts))
	for i, t := range texts {
		sp := "user"
		if i%2 == 1 {
			sp = "bot"
		}
		turns[i] = ev.Turn{Speaker: sp, Text: t}
	}
	return turns
}

// evalProject builds the sample project.
func evalProject() (*ev.Project, error) {
	cat, err := ev.Catalogue()
	if err != nil {
		return nil, err
	}
	p := &ev.Project{Name: evalProjectName, Settings: ev.DefaultSettings(), Units: map[string]int{}, Bots: map[string]ev.BotSpec{}}
	s := &p.Settings
	s.TaskName = evalTaskName
	s.TaskTitle = "Sample: judge six short chats with a chatbot"
	s.TaskDescription = "Read each chat, mark what the chatbot does on every one of its turns, and rate the whole chat. " +
		"A short training with feedback comes first."
	s.Grading = ev.Strict
	s.UseScreening = true
	s.PassedQualification = evalTaskName + "_screen"
	s.BlockQualification = evalTaskName + "_block"
	s.AllowedConcurrent = 1
	for _, name := range evalBehaviourTypes {
		var t *ev.AnnotationType
		for _, bt := range cat.BehaviourTypes {
			if bt.Name == name {
				c := *bt
				t = &c
			}
		}
		if t == nil {
			return nil, fmt.Errorf("the catalogue has no behaviour type %q", name)
		}
		p.Types = append(p.Types, t)
	}
	dim := func(stem string) (ev.Dimension, error) {
		for _, d := range cat.Dimensions {
			if d.Stem == stem {
				return d, nil
			}
		}
		return ev.Dimension{}, fmt.Errorf("the catalogue has no dimension %q", stem)
	}
	ratings := &ev.AnnotationType{Name: evalRatingsType, Title: evalRatingsType, Display: ev.LikertDialogue, Indices: ev.NoIndices,
		Require:      &ev.Requirement{Level: "dialogue"},
		LabelDetails: map[string]string{"1": "very poor", "3": "acceptable", "5": "excellent"},
		Description:  "Rate the chat as a whole on each scale, from 1 (very poor) to 5 (excellent). Judge the chatbot only, not the person it talks to."}
	for _, stem := range evalRatingDimensions {
		d, err := dim(stem)
		if err != nil {
			return nil, err
		}
		ratings.Scales = append(ratings.Scales, ev.Scale{Label: d.Label, Question: d.Question})
	}
	p.Types = append(p.Types, ratings)
	cd, err := dim(evalCompareDimension)
	if err != nil {
		return nil, err
	}
	compare := cd.DimensionTypes()[2]
	p.Types = append(p.Types, compare)

	perChat := append(slices.Clone(evalBehaviourTypes), evalRatingsType)
	for _, c := range evalChats {
		dp := ev.Datapoint{DialogueID: c.id, GroupID: c.id, AnnotationTasks: slices.Clone(perChat), Turns: chatTurns(c.turns)}
		p.Bundles = append(p.Bundles, ev.Bundle{Datapoints: []ev.Datapoint{dp}})
		p.Units[c.id] = evalUnits
	}
	pairID := evalChats[0].id + "|" + evalChats[1].id
	p.Bundles = append(p.Bundles, ev.Bundle{Datapoints: []ev.Datapoint{{DialogueID: pairID, GroupID: pairID,
		AnnotationTasks: []string{compare.Name}, Turns: chatTurns(evalChats[0].turns), Turns2: chatTurns(evalChats[1].turns)}}})
	p.Units[pairID] = evalUnits

	tr := &ev.Training{TypeName: evalTrainingType}
	labelsKey := p.Type(evalTrainingType).LabelsKey()
	for k, turns := range evalTraining {
		d := ev.TrainingDialogue{Key: fmt.Sprintf("%s-training-%d", Marker, k+1), DialogueID: fmt.Sprintf("%s-training-%d", Marker, k+1),
			AnnotationTasks: []string{evalTrainingType}, PassCriteria: 1, Remaining: 2 - k}
		for i, t := range turns {
			turn := ev.Turn{Speaker: "user", Text: t.text}
			if i%2 == 1 {
				turn.Speaker = "bot"
				truth := &ev.Truth{Entries: []ev.TruthEntry{}}
				if len(t.labels) > 0 {
					truth.Entries = append(truth.Entries, ev.TruthEntry{Key: labelsKey, Value: slices.Clone(t.labels)})
				}
				why := t.why
				turn.Truth, turn.Explanation = truth, &why
			}
			d.Turns = append(d.Turns, turn)
		}
		tr.Dialogues = append(tr.Dialogues, d)
	}
	p.Training = tr
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// writeEvaluation writes the project file into dir.
func writeEvaluation(dir string) error {
	p, err := evalProject()
	if err != nil {
		return err
	}
	data, err := ev.MarshalProject(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, EvaluationFile), data, 0o644)
}

// EvaluationProject is the Evaluation sample's project, as its file holds it.
func EvaluationProject() (*ev.Project, error) { return evalProject() }
