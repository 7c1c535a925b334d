package samples

import (
	"fmt"
	"path/filepath"
)

// OdysseyEpisode is the external id of the sample dataset's n-th episode (from 1), as
// writeOdyssey names them ("Sample-01"): the Explorer opens the first one to show an episode.
func OdysseyEpisode(n int) string { return fmt.Sprintf("%s-%02d", Marker, n) }

// IsDemonstrations reports whether path is a sample demonstrations file as Write names it
// (<dir>/SampleDemonstrations/SampleRecipes.pkl), wherever the samples were written.
func IsDemonstrations(path string) bool {
	return filepath.Base(path) == demoDefinition+".pkl" && filepath.Base(filepath.Dir(path)) == demonstrationsDir
}
