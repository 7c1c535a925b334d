package template

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
)

// InitConfValue is the placeholder value a blank conf gives every identifier.
const InitConfValue = "<VALUE>"

// InitConf returns the blank conf of a template: one `identifier: <VALUE>` line per
// identifier, in first-occurrence order (the original writes them in hash-set order, and
// misses identifiers used only in slots with a "'" modifier; this one does not). A template
// without slots gives "".
func InitConf(template string) string {
	var b strings.Builder
	for _, id := range Identifiers(template) {
		b.WriteString(id + ": " + InitConfValue + "\n")
	}
	return b.String()
}

// InitConfOriginalIdentifiers returns the identifiers the original init_conf finds (its slot
// pattern has no "'" support), in first-occurrence order.
func InitConfOriginalIdentifiers(template string) []string {
	return identifiers(template, matchSlotNoQuote)
}

// InitConfExtras returns the identifiers InitConf writes that the original misses.
func InitConfExtras(template string) []string {
	orig := map[string]bool{}
	for _, id := range InitConfOriginalIdentifiers(template) {
		orig[id] = true
	}
	var extra []string
	for _, id := range Identifiers(template) {
		if !orig[id] {
			extra = append(extra, id)
		}
	}
	return extra
}

// TemplateClass is the template name of a template file: its base name up to the first ".".
func TemplateClass(templatePath string) string {
	base := filepath.Base(templatePath)
	class, _, _ := strings.Cut(base, ".")
	return class
}

// InitConfFile is the original `init_conf TEMPLATE STEPNAME DUMPDIR`: it writes (overwrites)
// DUMPDIR/<class>-<STEPNAME>.conf, where <class> is the template file name up to its first
// ".", and returns the written path. Unlike the original it creates DUMPDIR when missing.
func InitConfFile(templatePath, stepName, dumpDir string) (string, error) {
	text, err := OSReader().readText(templatePath)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dumpDir, TemplateClass(templatePath)+"-"+stepName+".conf")
	if err := os.MkdirAll(dumpDir, 0o755); err != nil {
		return "", &Error{Category: CatMissingFile, File: dumpDir, Offset: -1, End: -1, Msg: err.Error(), Err: err}
	}
	if err := atomicfile.Write(out, []byte(InitConf(text)), 0o644); err != nil {
		return "", &Error{Category: CatMissingFile, File: out, Offset: -1, End: -1, Msg: err.Error(), Err: err}
	}
	return out, nil
}
