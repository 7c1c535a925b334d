package evaluation

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// Hydra composition of the original's configurations, as far as a project import needs it:
// the `defaults:` list of a configuration (config groups and files merged in order, later
// entries over earlier ones, the configuration's own content where `_self_` stands, at the
// end without it, as Hydra 1.1 does) and command-line overrides (`key=value`, `+key=value`,
// `++key=value`, `~key`, and `group=option` for an entry of the defaults list), applied
// before the import reads the settings.

// Override is one command-line override of a hydra configuration.
type Override struct {
	// Op is "" (change an existing key), "+" (add a key that is not there), "++" (add or
	// change) or "~" (delete).
	Op  string
	Key string
	// Value is the value as typed (YAML syntax: 3, true, null, 'text', [a, b], {a: 1}).
	Value    string
	HasValue bool
}

// String writes the override as it is typed.
func (o Override) String() string {
	if !o.HasValue {
		return o.Op + o.Key
	}
	return o.Op + o.Key + "=" + o.Value
}

var overrideKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_\-./@]*$`)

// ParseOverride reads one override argument ("key=value", "+key=value", "++key=value",
// "~key", "~key=value").
func ParseOverride(arg string) (Override, error) {
	var o Override
	rest := arg
	switch {
	case strings.HasPrefix(rest, "++"):
		o.Op, rest = "++", rest[2:]
	case strings.HasPrefix(rest, "+"):
		o.Op, rest = "+", rest[1:]
	case strings.HasPrefix(rest, "~"):
		o.Op, rest = "~", rest[1:]
	}
	key, value, has := strings.Cut(rest, "=")
	o.Key, o.Value, o.HasValue = strings.TrimSpace(key), value, has
	if !overrideKey.MatchString(o.Key) {
		return o, fmt.Errorf("override %q: %q is not a configuration key", arg, o.Key)
	}
	if !has && o.Op != "~" {
		return o, fmt.Errorf("override %q: want key=value (or ~key to delete a key)", arg)
	}
	return o, nil
}

// ParseOverrides reads override arguments; see ParseOverride.
func ParseOverrides(args []string) ([]Override, error) {
	out := make([]Override, 0, len(args))
	for _, a := range args {
		o, err := ParseOverride(a)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// IsOverride says whether a command-line argument looks like a hydra override (key=value,
// +key=value, ~key) rather than a path.
func IsOverride(arg string) bool {
	if strings.HasPrefix(arg, "~") || strings.HasPrefix(arg, "+") {
		_, err := ParseOverride(arg)
		return err == nil
	}
	key, _, ok := strings.Cut(arg, "=")
	return ok && overrideKey.MatchString(key) && !strings.ContainsAny(key, `\`)
}

// composer composes a primary configuration with its defaults lists and the overrides.
type composer struct {
	// confRoot is the root of the config search path (hydra_configs), primaryGroup the
	// primary configuration's group ("conf" for hydra_configs/conf/x.yaml).
	confRoot, primaryGroup string
	rel                    func(string) string
	rep                    *ImportReport
	origin                 map[*yaml.Node]string
	files                  []string
	loading                map[string]bool
	// overrides are the command line's; those that change the primary defaults list are
	// taken out when it is read, the rest set values afterwards.
	overrides []Override
}

const commandLine = "command line"

// defaultEntry is one entry of a defaults list.
type defaultEntry struct {
	self     bool
	group    string // "" for a plain config name
	absolute bool   // /group
	pkg      string // @package of the entry
	options  []string
	optional bool
	line     int
}

// composeConfig reads the primary configuration at path and returns the composed root
// mapping, the file (relative) of every node taken from a file, and the files read.
func (im *importer) composeConfig(path string, overrides []Override) (*yaml.Node, map[*yaml.Node]string, error) {
	dir := filepath.Dir(path)
	c := &composer{confRoot: dir, rel: im.rel, rep: im.rep, origin: map[*yaml.Node]string{}, loading: map[string]bool{}}
	if filepath.Base(filepath.Dir(dir)) == "hydra_configs" || filepath.Base(dir) == "conf" {
		c.confRoot, c.primaryGroup = filepath.Dir(dir), filepath.Base(dir)
	}
	c.overrides = overrides
	root, err := c.load(path, c.primaryGroup, "", 0)
	if err != nil {
		return nil, nil, err
	}
	if root == nil {
		return nil, nil, &FileError{File: im.rel(path), Err: fmt.Errorf("empty configuration")}
	}
	for _, f := range c.files {
		if f == path {
			im.used[im.rel(f)] = "the configuration: the project's settings"
		} else {
			im.used[im.rel(f)] = "part of the configuration (its defaults list)"
		}
	}
	if err := c.applyOverrides(root, c.overrides); err != nil {
		return nil, nil, err
	}
	return root, c.origin, nil
}

// packageHeader reads a "# @package <name>" header.
func packageHeader(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		body := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		if strings.HasPrefix(body, "@package") {
			return strings.TrimSpace(strings.TrimPrefix(body, "@package"))
		}
	}
	return ""
}

// load reads one configuration file, composes its defaults list and returns its content
// placed at its package (a mapping from the root). entryPkg is the package the defaults entry
// gives ("" = the file's header, else its group; "_global_" = the root).
func (c *composer) load(path, group, entryPkg string, depth int) (*yaml.Node, error) {
	rel := c.rel(path)
	if depth > 12 {
		return nil, &FileError{File: rel, Err: fmt.Errorf("defaults nested too deeply")}
	}
	if c.loading[path] {
		return nil, &FileError{File: rel, Err: fmt.Errorf("defaults refer back to this configuration")}
	}
	c.loading[path] = true
	defer delete(c.loading, path)
	data, err := limits.ReadFile(path, limits.Config)
	if err != nil {
		return nil, err
	}
	c.files = append(c.files, path)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &FileError{File: rel, Err: err}
	}
	self := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if len(doc.Content) > 0 {
		n := doc.Content[0]
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			n = self
		}
		if n.Kind != yaml.MappingNode {
			return nil, &FileError{File: rel, Line: n.Line, Err: fmt.Errorf("a configuration is a mapping")}
		}
		self = n
	}
	c.mark(self, rel)
	// the defaults list, taken out of the content
	var defaults *yaml.Node
	for i := 0; i+1 < len(self.Content); i += 2 {
		if self.Content[i].Value == "defaults" {
			defaults = self.Content[i+1]
			self.Content = append(self.Content[:i:i], self.Content[i+2:]...)
			break
		}
	}
	entries, err := c.entries(defaults, rel)
	if err != nil {
		return nil, err
	}
	if depth == 0 {
		if entries, c.overrides, err = c.overrideDefaults(entries, c.overrides); err != nil {
			return nil, err
		}
	}
	hasSelf := false
	for _, e := range entries {
		hasSelf = hasSelf || e.self
	}
	if !hasSelf {
		entries = append(entries, defaultEntry{self: true})
	}
	// the file's package: the entry's @package, else the header, else its group
	pkg := entryPkg
	if pkg == "" {
		pkg = packageHeader(data)
	}
	switch pkg {
	case "", "_group_":
		pkg = strings.ReplaceAll(group, "/", ".")
		if depth == 0 {
			pkg = "" // the primary configuration is global
		}
	case "_global_":
		pkg = ""
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, e := range entries {
		if e.self {
			mergeMapping(out, placeAt(self, pkg))
			continue
		}
		for _, opt := range e.options {
			part, err := c.loadEntry(e, opt, group, pkg, path, depth)
			if err != nil {
				return nil, err
			}
			if part != nil {
				mergeMapping(out, part)
			}
		}
	}
	return out, nil
}

// mark records the file of every node under n.
func (c *composer) mark(n *yaml.Node, file string) {
	if n == nil {
		return
	}
	c.origin[n] = file
	for _, k := range n.Content {
		c.mark(k, file)
	}
}

// entries reads a defaults list.
func (c *composer) entries(list *yaml.Node, rel string) ([]defaultEntry, error) {
	if list == nil || list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return nil, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, &FileError{File: rel, Line: list.Line, Err: fmt.Errorf("defaults must be a list")}
	}
	var out []defaultEntry
	for _, it := range list.Content {
		e := defaultEntry{line: it.Line}
		switch {
		case it.Kind == yaml.ScalarNode && it.Value == "_self_":
			e.self = true
		case it.Kind == yaml.ScalarNode:
			e.options = []string{it.Value}
			e.group = ""
		case it.Kind == yaml.MappingNode && len(it.Content) == 2:
			key, val := it.Content[0].Value, it.Content[1]
			for _, word := range []string{"optional ", "override "} {
				if strings.HasPrefix(key, word) {
					e.optional = e.optional || word == "optional "
					key = strings.TrimSpace(strings.TrimPrefix(key, word))
				}
			}
			key, e.pkg, _ = strings.Cut(key, "@")
			e.absolute = strings.HasPrefix(key, "/")
			e.group = strings.Trim(key, "/")
			switch {
			case val.Kind == yaml.ScalarNode && val.Tag == "!!null":
			case val.Kind == yaml.ScalarNode:
				e.options = []string{val.Value}
			case val.Kind == yaml.SequenceNode:
				for _, o := range val.Content {
					e.options = append(e.options, o.Value)
				}
			default:
				return nil, &FileError{File: rel, Line: it.Line, Err: fmt.Errorf("defaults entry %q: want an option name", key)}
			}
		default:
			return nil, &FileError{File: rel, Line: it.Line, Err: fmt.Errorf("a defaults entry is _self_, a config name or group: option")}
		}
		out = append(out, e)
	}
	return out, nil
}

// overrideDefaults applies group=option, +group=option and ~group to the primary defaults (an
// override whose key names a group of the list, or has a "/"); it returns the other overrides.
func (c *composer) overrideDefaults(entries []defaultEntry, ovs []Override) ([]defaultEntry, []Override, error) {
	var rest []Override
	for _, o := range ovs {
		group := strings.Trim(o.Key, "/")
		found := -1
		for i, e := range entries {
			if !e.self && e.group != "" && e.group == group {
				found = i
			}
		}
		if found < 0 && !strings.Contains(o.Key, "/") {
			rest = append(rest, o)
			continue
		}
		switch {
		case o.Op == "~":
			if found < 0 {
				return nil, nil, fmt.Errorf("override %s: the defaults list has no group %s", o, group)
			}
			entries = append(entries[:found:found], entries[found+1:]...)
		case o.Op == "+" || o.Op == "++" && found < 0:
			if found >= 0 && o.Op == "+" {
				return nil, nil, fmt.Errorf("override %s: the defaults list already has %s (use %s=%s)", o, group, group, o.Value)
			}
			entries = append(entries, defaultEntry{group: group, absolute: true, options: []string{o.Value}})
		default:
			if found < 0 {
				return nil, nil, fmt.Errorf("override %s: the defaults list has no group %s (use +%s to add it)", o, group, o.String())
			}
			entries[found].options = []string{o.Value}
		}
		c.rep.add(Understood, commandLine, o.String(), "defaults list of the configuration changed")
	}
	return entries, rest, nil
}

// mephistoGroups are config groups of Mephisto's own (structured configs registered in
// Python): they have no file; the app has its own blueprint, architect and provider.
func mephistoGroup(group string) bool {
	return group == "mephisto" || strings.HasPrefix(group, "mephisto/") || group == "hydra" || strings.HasPrefix(group, "hydra/")
}

// loadEntry loads one option of a defaults entry of the configuration at parent (its group
// and package).
func (c *composer) loadEntry(e defaultEntry, opt, group, parentPkg, parent string, depth int) (*yaml.Node, error) {
	prel := c.rel(parent)
	var dir, childGroup string
	switch {
	case e.group == "": // a config of the same group, next to the parent
		dir, childGroup = filepath.Dir(parent), group
	case e.absolute:
		dir, childGroup = filepath.Join(c.confRoot, filepath.FromSlash(e.group)), e.group
	default:
		childGroup = strings.Trim(group+"/"+e.group, "/")
		dir = filepath.Join(c.confRoot, filepath.FromSlash(childGroup))
	}
	name := strings.TrimSuffix(strings.TrimSuffix(opt, ".yaml"), ".yml")
	path := ""
	for _, ext := range []string{".yaml", ".yml"} {
		if p := filepath.Join(dir, filepath.FromSlash(name)+ext); fileExists(p) {
			path = p
			break
		}
	}
	label := opt
	if e.group != "" {
		label = e.group + ": " + opt
	}
	where := fmt.Sprintf("defaults (line %d): %s", e.line, label)
	if path == "" {
		switch {
		case mephistoGroup(childGroup):
			c.rep.add(Ignored, prel, where, "Mephisto's built-in configuration (no file): the app has its own blueprint, server and provider")
		case e.optional:
			c.rep.add(Ignored, prel, where, "optional, and no such configuration: skipped")
		default:
			return nil, &FileError{File: prel, Line: e.line, Err: fmt.Errorf("defaults: no configuration %s (looked for %s.yaml)", label, c.rel(filepath.Join(dir, name)))}
		}
		return nil, nil
	}
	header := "" // the file's own "# @package" line, read once (load reads the file itself)
	if data, err := limits.ReadFile(path, limits.Config); err == nil {
		header = packageHeader(data)
	}
	pkg := e.pkg
	if pkg == "" && e.group == "" {
		// a config named without a group goes where the configuration naming it goes
		if header == "" {
			pkg = parentPkg
			if pkg == "" {
				pkg = "_global_"
			}
		}
	}
	part, err := c.load(path, childGroup, pkg, depth+1)
	if err != nil {
		return nil, err
	}
	at := pkg
	if at == "" {
		at = header
	}
	if at == "" || at == "_group_" {
		at = strings.ReplaceAll(childGroup, "/", ".")
	}
	if at == "_global_" {
		at = "the root"
	}
	c.rep.add(Understood, prel, where, "composed %s at %s", c.rel(path), at)
	return part, nil
}

// placeAt wraps content in mappings for a dotted package ("" = the root).
func placeAt(n *yaml.Node, pkg string) *yaml.Node {
	if pkg == "" {
		return n
	}
	parts := strings.Split(pkg, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[i]}, n}}
	}
	return n
}

// mergeMapping merges src into dst as OmegaConf does: mappings key by key, recursively;
// anything else replaced by src's.
func mergeMapping(dst, src *yaml.Node) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		j := mappingIndex(dst, k.Value)
		if j < 0 {
			dst.Content = append(dst.Content, k, cloneNode(v))
			continue
		}
		old := dst.Content[j+1]
		if old.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode {
			mergeMapping(old, v)
			continue
		}
		dst.Content[j], dst.Content[j+1] = k, cloneNode(v)
	}
}

// cloneNode copies mappings (so that merging never changes a file's own nodes); scalars and
// sequences are shared (they are replaced, never changed).
func cloneNode(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	c := *n
	c.Content = append([]*yaml.Node(nil), n.Content...)
	for i := 1; i < len(c.Content); i += 2 {
		c.Content[i] = cloneNode(c.Content[i])
	}
	return &c
}

func mappingIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// shorthandKey turns a bare blueprint or task parameter name into its full key.
func shorthandKey(root *yaml.Node, key string) (string, bool) {
	if strings.Contains(key, ".") || mappingIndex(root, key) >= 0 {
		return key, false
	}
	_, bp := blueprintUnderstood[key]
	_, bi := blueprintIgnored[key]
	if bp || bi {
		return "mephisto.blueprint." + key, true
	}
	_, tu := taskUnderstood[key]
	_, ti := taskIgnored[key]
	if tu || ti {
		return "mephisto.task." + key, true
	}
	return key, false
}

// overrideValue parses an override's value with YAML (Hydra's own grammar agrees on the
// common cases; {a:1} is read as {a: 1}).
func overrideValue(o Override) (*yaml.Node, error) {
	v := strings.TrimSpace(o.Value)
	if v == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}, nil
	}
	if strings.HasPrefix(v, "{") {
		v = flowColons(v)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(v), &doc); err != nil || len(doc.Content) == 0 {
		return nil, fmt.Errorf("override %s: the value is not valid (%v)", o, err)
	}
	n := doc.Content[0]
	n.Line, n.Column = 0, 0
	return n, nil
}

// flowColons puts a space after the colons of a flow mapping outside quotes ({a:1} → {a: 1}).
func flowColons(s string) string {
	var b strings.Builder
	var quote rune
	rs := []rune(s)
	for i, r := range rs {
		b.WriteRune(r)
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ':' && i+1 < len(rs) && rs[i+1] != ' ':
			b.WriteRune(' ')
		}
	}
	return b.String()
}

// applyOverrides applies the value overrides to the composed configuration.
func (c *composer) applyOverrides(root *yaml.Node, ovs []Override) error {
	for _, o := range ovs {
		key, short := shorthandKey(root, o.Key)
		parts := strings.Split(key, ".")
		parent := root
		for i, p := range parts[:len(parts)-1] {
			j := mappingIndex(parent, p)
			if j < 0 {
				if o.Op == "+" || o.Op == "++" {
					n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
					parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}, n)
					parent = n
					continue
				}
				return fmt.Errorf("override %s: the configuration has no %s (use +%s=… to add it)", o, strings.Join(parts[:i+1], "."), key)
			}
			next := parent.Content[j+1]
			if next.Kind != yaml.MappingNode {
				return fmt.Errorf("override %s: %s is not a mapping", o, strings.Join(parts[:i+1], "."))
			}
			parent = next
		}
		last := parts[len(parts)-1]
		j := mappingIndex(parent, last)
		was := ""
		if j >= 0 {
			was = nodeText(parent.Content[j+1])
		}
		switch o.Op {
		case "~":
			if j < 0 {
				return fmt.Errorf("override %s: the configuration has no %s to delete", o, key)
			}
			if o.HasValue && strings.TrimSpace(o.Value) != was {
				return fmt.Errorf("override %s: %s is %s, not %s", o, key, was, o.Value)
			}
			parent.Content = append(parent.Content[:j:j], parent.Content[j+2:]...)
		case "+":
			if j >= 0 {
				return fmt.Errorf("override %s: %s is already in the configuration (%s); change it with %s=…", o, key, was, key)
			}
			fallthrough
		default:
			if j < 0 && o.Op == "" {
				return fmt.Errorf("override %s: the configuration has no %s (use +%s=… to add it)", o, key, key)
			}
			v, err := overrideValue(o)
			if err != nil {
				return err
			}
			c.mark(v, commandLine)
			if j >= 0 {
				parent.Content[j+1] = v
			} else {
				parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, v)
			}
		}
		msg := "set on the command line"
		switch {
		case o.Op == "~":
			msg = "deleted on the command line (was " + was + ")"
		case j >= 0:
			msg = "set on the command line (was " + was + ")"
		case o.Op != "":
			msg = "added on the command line"
		}
		if short {
			msg += "; " + o.Key + " taken as " + key
		}
		c.rep.add(Understood, commandLine, o.String(), "%s", msg)
	}
	return nil
}

// nodeText is a node's value in one line (for the report).
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!null" {
			return "null"
		}
		return n.Value
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return "…"
	}
	s := strings.Join(strings.Fields(string(out)), " ")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
