package samples

import (
	"os"
	"path/filepath"
)

// The Templates sample: two task-definition templates for the made-up recipe app of the
// Demonstrations sample, token confs for two dishes and three task files chaining them, in the
// folder layout the Templates workspace opens (templates/ and tasks/).

// templateFiles are the files of the template folder, by slash path.
var templateFiles = []struct{ path, text string }{
	{"templates/" + Marker + "_recipe_search.textproto.template", `# Agentdesk sample template: search the Sample Recipes app for a dish.
# Slots: dish, package, max_steps, words.
id: "` + Marker + `-search-<lower,url_title:dish>"
name: "Sample Recipes Search - Search for <dish>"
description: "Type <dish> into the search box of the Sample Recipes app and start the search."
setup_steps: { adb_call: { force_stop: { package_name: "<package>" } } }
reset_steps: { adb_call: { start_activity: { full_activity: "<package>/.HomeActivity" } } }
expected_app_screen: { activity: "<package>/.HomeActivity" }
max_num_steps: <max_steps>
event_sources: {
  view_hierarchy_event: {
    selector: '#$"search_box"'
    properties: { property_name: "text" pattern: "^<regex_esc:dish>$" }
  }
  id: 1
}
event_sources: { log_event: { filters: "SampleRecipes:I" pattern: "search q=<regex_esc,url_query:dish>" } id: 2 }
event_slots: {
  reward_listener: { type: AND id: 3 events: [ { id: 1 }, { id: 2 } ] transformation: "y = 1" repeatability: NONE }
  episode_end_listener: { events: { id: 3 } transformation: "y = True" }
  instruction_listener: { events: { id: 1 } transformation: "y = ['Now press Go on the keyboard']" }
}
command: "Search for <dish> in the Sample Recipes app"
vocabulary: <no_quote,to_list,lower':words>
`},
	{"templates/" + Marker + "_recipe_save.textproto.template", `# Agentdesk sample template: open a recipe of the Sample Recipes app and save it to a list.
# Slots: dish, list, package, max_steps, words.
id: "` + Marker + `-save-<lower,url_title:dish>"
name: "Sample Recipes Save - Save <dish> to <list>"
description: "Open the recipe for <dish> and add it to the list \"<list>\"."
reset_steps: { adb_call: { start_activity: { full_activity: "<package>/.RecipeListActivity" } } }
max_num_steps: <max_steps>
event_sources: {
  view_hierarchy_event: {
    selector: '#$"recipe_title"'
    properties: { property_name: "text" pattern: "^<regex_esc:dish>$" }
  }
  id: 1
}
event_sources: { log_event: { filters: "SampleRecipes:I" pattern: "saved to <regex_esc:list>: <lower,regex_esc:dish>$" } id: 2 }
event_slots: {
  reward_listener: { type: SINGLE id: 3 events: { id: 2 } prerequisite: [ 1 ] transformation: "y = 1" repeatability: NONE }
  episode_end_listener: { events: { id: 3 } transformation: "y = True" }
  instruction_listener: { events: { id: 1 } transformation: "y = ['Tap the save button']" }
}
command: "Open the recipe for <dish> and save it to <list>"
vocabulary: <no_quote,to_list,lower':words>
`},
	{"tasks/" + Marker + "_recipe_search-pancakes.conf", `dish: Pancakes
package: org.agentdesk.samplerecipes
max_steps: 15
words: pancakes,pancake
`},
	{"tasks/" + Marker + "_recipe_search-tomato_soup.conf", `dish: Tomato soup
package: org.agentdesk.samplerecipes
max_steps: 15
words: Tomato,Soup
`},
	{"tasks/" + Marker + "_recipe_save-pancakes.conf", `dish: Pancakes
list: Favourites
package: org.agentdesk.samplerecipes
max_steps: 10
words: Favourites,Save
`},
	{"tasks/" + Marker + "_recipe_save-tomato_soup.conf", `dish: Tomato soup
list: Weeknight dinners
package: org.agentdesk.samplerecipes
max_steps: 12
words: weeknight,dinners
`},
	// A search on its own, then two chains: the second keeps the save step's reset steps ("r").
	{"tasks/" + Marker + "_search_pancakes.task", Marker + "_recipe_search-pancakes\n"},
	{"tasks/" + Marker + "_save_pancakes.task", Marker + "_recipe_search-pancakes\n" + Marker + "_recipe_save-pancakes\n"},
	{"tasks/" + Marker + "_plan_soup.task", Marker + "_recipe_search-tomato_soup\n" + Marker + "_recipe_save-tomato_soup r\n"},
}

// writeTemplates writes the template folder into dir.
func writeTemplates(dir string) error {
	for _, f := range templateFiles {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
