package evaluation

import (
	"fmt"
	"slices"
	"strings"
)

// CollectionChoice is what a new dialogue-collection project needs when it is made in the
// app rather than imported (spec §13): the bots and how each is run, how many a session
// chats with (1: single, 2: paired), the conditions with their session counts (the
// original's conversations_needed_string), the message cap and the time per message, the
// ratings after each conversation (the catalogue's quality dimensions: a 1-5 dialogue scale
// per dimension after every conversation and, with two bots, a comparison of the second
// conversation with the first), an optional question under every bot message, and personas.
type CollectionChoice struct {
	Name string
	// Bots maps a model key to its definition; BotOrder keeps the order they were given in.
	Bots     map[string]BotSpec
	BotOrder []string
	// NumBots is 1 (a session chats with one bot) or 2 (with two, one after the other).
	NumBots int
	// ConversationsNeeded is the conditions string ("botA:10,botB:10" or
	// "botA|botB:10"); empty: every bot (or every pair of bots) SessionsPerCondition times.
	ConversationsNeeded  string
	SessionsPerCondition int
	// NumTurns is the message cap (the original's num_turns; the opening "Hi!" and the bot's
	// first reply count); MaxResponseSeconds the time per message (0: no limit).
	NumTurns           int
	MaxResponseSeconds int
	// Dimensions are the stems of the catalogue's quality dimensions to rate after each
	// conversation ("quality", "engaging", …); Compare adds their comparisons of the second
	// conversation with the first (two bots only).
	Dimensions []string
	Compare    bool
	// Online is the stem of a dimension asked 1-5 under every bot message ("" for none).
	Online string
	// IncludePersona and Personas: see Settings.
	IncludePersona bool
	Personas       [][]string
}

// DefaultConditions is the conditions string giving every bot (numBots 1) or every pair of
// bots in the order given (numBots 2) n sessions.
func DefaultConditions(bots []string, numBots, n int) string {
	var items []string
	switch numBots {
	case 1:
		for _, b := range bots {
			items = append(items, fmt.Sprintf("%s:%d", b, n))
		}
	case 2:
		for i := range bots {
			for j := i + 1; j < len(bots); j++ {
				items = append(items, fmt.Sprintf("%s|%s:%d", bots[i], bots[j], n))
			}
		}
	}
	return strings.Join(items, ",")
}

// Project builds the collection project of the choice.
func (c CollectionChoice) Project() (*Project, error) {
	name := strings.TrimSpace(c.Name)
	if name == "" {
		return nil, fmt.Errorf("the project needs a name")
	}
	if c.NumBots != 1 && c.NumBots != 2 {
		return nil, fmt.Errorf("a session chats with 1 or 2 bots, not %d", c.NumBots)
	}
	order := c.BotOrder
	if len(order) == 0 {
		for k := range c.Bots {
			order = append(order, k)
		}
		slices.Sort(order)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("add at least one bot")
	}
	for _, k := range order {
		if k == "" || strings.ContainsAny(k, " \t\n:,|") {
			return nil, fmt.Errorf("bot name %q: use letters, digits, _ or - (no spaces, \":\", \",\" or \"|\")", k)
		}
		spec, ok := c.Bots[k]
		if !ok {
			return nil, fmt.Errorf("bot %q has no definition", k)
		}
		if err := spec.Validate(); err != nil {
			return nil, fmt.Errorf("bot %q: %w", k, err)
		}
	}
	if c.NumBots == 2 && len(order) < 2 && strings.TrimSpace(c.ConversationsNeeded) == "" {
		return nil, fmt.Errorf("paired sessions need two bots (or a condition such as %s|%s:10)", order[0], order[0])
	}
	conds := strings.TrimSpace(c.ConversationsNeeded)
	if conds == "" {
		conds = DefaultConditions(order, c.NumBots, max(c.SessionsPerCondition, 1))
	}
	cs, err := ParseConditions(conds)
	if err != nil {
		return nil, fmt.Errorf("conditions: %w", err)
	}
	for _, cond := range cs {
		if len(cond.Models) != c.NumBots {
			return nil, fmt.Errorf("condition %q has %d bots; a session chats with %d", cond.Key, len(cond.Models), c.NumBots)
		}
		for _, m := range cond.Models {
			if _, ok := c.Bots[m]; !ok {
				return nil, fmt.Errorf("condition %q names %q, which is not one of the bots (%s)", cond.Key, m, strings.Join(order, ", "))
			}
		}
	}
	if cs.Total() <= 0 {
		return nil, fmt.Errorf("the conditions ask for no session")
	}
	if c.NumTurns < 2 {
		return nil, fmt.Errorf("the message cap counts the opening \"Hi!\" and the bot's first reply: at least 2, not %d", c.NumTurns)
	}
	if c.MaxResponseSeconds < 0 {
		return nil, fmt.Errorf("the time per message cannot be negative")
	}
	cat, err := Catalogue()
	if err != nil {
		return nil, err
	}
	dims := map[string]Dimension{}
	var stems []string
	for _, d := range cat.Dimensions {
		dims[d.Stem] = d
		stems = append(stems, d.Stem)
	}
	p := &Project{Name: name, Settings: DefaultSettings(), Units: map[string]int{}, Bots: map[string]BotSpec{}}
	for _, k := range order {
		p.Bots[k] = c.Bots[k]
	}
	s := &p.Settings
	s.TaskName = fileStem(name)
	s.BlockQualification = s.TaskName + "_block"
	s.Grading = Strict
	s.ExternalAnnotations, s.CollectDialogue = false, true
	s.NumBots, s.ConversationsNeeded = c.NumBots, conds
	s.NumTurns, s.MaxResponseSeconds = c.NumTurns, c.MaxResponseSeconds
	s.AllowedConcurrent = 1 // as the original's collection configuration
	s.IncludePersona, s.Personas = c.IncludePersona, c.Personas
	var likert, compare []string
	for _, stem := range c.Dimensions {
		d, ok := dims[stem]
		if !ok {
			return nil, fmt.Errorf("no quality dimension %q (the catalogue has %s)", stem, strings.Join(stems, ", "))
		}
		ts := d.DimensionTypes()
		p.Types = append(p.Types, ts[0])
		likert = append(likert, ts[0].Name)
		if c.Compare && c.NumBots == 2 {
			p.Types = append(p.Types, ts[2])
			compare = append(compare, ts[2].Name)
		}
	}
	if c.Online != "" {
		d, ok := dims[c.Online]
		if !ok {
			return nil, fmt.Errorf("no quality dimension %q to ask under the bot's messages", c.Online)
		}
		t := d.DimensionTypes()[1]
		p.Types = append(p.Types, t)
		s.OnlineAnnotation = t.Name
	}
	if len(likert) > 0 {
		s.OfflineAnnotations = [][]string{slices.Clone(likert)}
		if c.NumBots == 2 {
			s.OfflineAnnotations = append(s.OfflineAnnotations, append(slices.Clone(likert), compare...))
		}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}
