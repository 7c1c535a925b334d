package evaluation

import (
	"reflect"
	"strings"
	"testing"
)

func TestCollectionChoiceProject(t *testing.T) {
	bots := map[string]BotSpec{"botA": {Kind: BotEcho}, "botB": {Kind: BotExec, Command: []string{"python3", "bot.py"}},
		"botC": {Kind: BotHTTP, URL: "http://localhost:8000/v1/chat/completions", Model: "botC"}}
	c := CollectionChoice{Name: "chat study", Bots: bots, BotOrder: []string{"botA", "botB", "botC"}, NumBots: 2,
		SessionsPerCondition: 3, NumTurns: 8, MaxResponseSeconds: 120, Dimensions: []string{"quality", "engaging"}, Compare: true,
		Online: "relevant", IncludePersona: true, Personas: [][]string{{"i like cats."}}}
	p, err := c.Project()
	if err != nil {
		t.Fatal(err)
	}
	s := p.Settings
	if !s.CollectDialogue || s.ExternalAnnotations || s.NumBots != 2 || s.NumTurns != 8 || s.MaxResponseSeconds != 120 ||
		s.ConversationsNeeded != "botA|botB:3,botA|botC:3,botB|botC:3" || s.TaskName != "chat_study" || s.AllowedConcurrent != 1 ||
		s.OnlineAnnotation != "relevant_likert_turn" || !s.IncludePersona || len(s.Personas) != 1 {
		t.Fatalf("settings %+v", s)
	}
	want := [][]string{{"quality_likert", "engaging_likert"}, {"quality_likert", "engaging_likert", "quality_comparative", "engaging_comparative"}}
	if !reflect.DeepEqual(s.OfflineAnnotations, want) {
		t.Fatalf("offline %v", s.OfflineAnnotations)
	}
	// the original's regrouping keeps every one of them (likert, then comparative)
	if g := OfflineGroups(s.OfflineAnnotations[1]); len(g.Dropped) != 0 || len(g.Likert) != 2 || len(g.Comparative) != 2 {
		t.Fatalf("groups %+v", g)
	}
	if len(p.Types) != 5 || p.Type("relevant_likert_turn").Display != LikertTurn || len(p.Bots) != 3 {
		t.Fatalf("types %d, bots %v", len(p.Types), p.Bots)
	}
	// the project file keeps it, and it saves in the original's layout
	data, err := MarshalProject(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := UnmarshalProject(data, "p.toml")
	if err != nil || q.Settings.ConversationsNeeded != s.ConversationsNeeded || !reflect.DeepEqual(q.Settings.OfflineAnnotations, want) {
		t.Fatalf("round trip %v", err)
	}
	out := t.TempDir()
	if _, err := ExportOriginal(p, out); err != nil {
		t.Fatal(err)
	}
	back, _, err := ImportOriginal(out, ImportOptions{})
	if err != nil || back.Settings.ConversationsNeeded != s.ConversationsNeeded || !back.Settings.CollectDialogue {
		t.Fatalf("re-import %v %+v", err, back.Settings)
	}

	// single-bot sessions without ratings
	single := CollectionChoice{Name: "x", Bots: bots, NumBots: 1, SessionsPerCondition: 2, NumTurns: 6}
	p, err = single.Project()
	if err != nil || p.Settings.ConversationsNeeded != "botA:2,botB:2,botC:2" || p.Settings.OfflineAnnotations != nil || len(p.Types) != 0 {
		t.Fatalf("single: %v %+v", err, p)
	}

	for _, bad := range []struct {
		edit func(*CollectionChoice)
		want string
	}{
		{func(c *CollectionChoice) { c.Name = " " }, "needs a name"},
		{func(c *CollectionChoice) { c.Bots, c.BotOrder = nil, nil }, "at least one bot"},
		{func(c *CollectionChoice) { c.NumBots = 3 }, "1 or 2 bots"},
		{func(c *CollectionChoice) { c.ConversationsNeeded = "botA:2" }, "has 1 bots; a session chats with 2"},
		{func(c *CollectionChoice) { c.ConversationsNeeded = "botA|botZ:2" }, `names "botZ"`},
		{func(c *CollectionChoice) { c.ConversationsNeeded = "botA|botB:0" }, "no session"},
		{func(c *CollectionChoice) { c.ConversationsNeeded = "botA|botB" }, "conditions"},
		{func(c *CollectionChoice) { c.NumTurns = 1 }, "at least 2"},
		{func(c *CollectionChoice) { c.Dimensions = []string{"wit"} }, `no quality dimension "wit"`},
		{func(c *CollectionChoice) {
			c.Bots["bot A"] = BotSpec{Kind: BotEcho}
			c.BotOrder = append(c.BotOrder, "bot A")
		}, "bot name"},
		{func(c *CollectionChoice) { c.Bots["botB"] = BotSpec{Kind: BotExec} }, "needs a command"},
	} {
		cc := c
		cc.Bots = map[string]BotSpec{}
		for k, v := range bots {
			cc.Bots[k] = v
		}
		cc.BotOrder = append([]string(nil), c.BotOrder...)
		bad.edit(&cc)
		if _, err := cc.Project(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v", bad.want, err)
		}
	}
}
