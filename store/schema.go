package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The store checks its schema against what its migrations make: every table (with its
// columns and constraints), index, trigger, view and FTS table, FTS shadow tables included.
// The expected schema is made once per process by applying the embedded migrations to an
// in-memory database; a store made or upgraded by the same migrations holds the same
// sqlite_schema text (SQLite keeps each CREATE statement verbatim and ALTER TABLE rewrites it
// the same way every time), so the texts are compared, whitespace normalised.

// schemaObject is one row of sqlite_schema.
type schemaObject struct {
	kind, name, table, sql string
}

// rebuiltObjects are objects a store may lack for a while without damage: a large import
// drops the action-kind index and builds it again at its end (ImportOdyssey), so a chunked
// import that was stopped leaves it out until the next import.
var rebuiltObjects = map[string]bool{"steps_by_action_kind": true}

var expected struct {
	once    sync.Once
	objects map[string]schemaObject
	columns map[string][]string // table → its columns as pragma table_xinfo lists them
	err     error
}

// expectedSchema returns the schema the embedded migrations make (computed once).
func expectedSchema() (map[string]schemaObject, map[string][]string, error) {
	expected.once.Do(func() {
		expected.objects, expected.columns, expected.err = buildExpectedSchema()
	})
	return expected.objects, expected.columns, expected.err
}

func buildExpectedSchema() (map[string]schemaObject, map[string][]string, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	ctx := context.Background()
	all := make([]string, 0, len(migrations))
	for _, m := range migrations {
		all = append(all, m.sql)
	}
	// one statement list in one transaction: half the time of one Exec per migration
	if _, err := db.ExecContext(ctx, "BEGIN;\n"+strings.Join(all, ";\n")+";\nCOMMIT;"); err != nil {
		return nil, nil, fmt.Errorf("applying the migrations to compare schemas: %w", err)
	}
	objects, err := readSchema(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	columns := map[string][]string{}
	for _, o := range objects {
		if o.kind == "table" {
			if columns[o.name], err = tableColumns(ctx, db, o.name); err != nil {
				return nil, nil, err
			}
		}
	}
	return objects, columns, nil
}

// readSchema reads the main schema's objects (not the planner's statistics, which ANALYZE and
// PRAGMA optimize make).
func readSchema(ctx context.Context, q querier) (map[string]schemaObject, error) {
	rows, err := q.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM main.sqlite_schema
		WHERE name NOT LIKE 'sqlite\_stat%' ESCAPE '\'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]schemaObject{}
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		o.sql = strings.Join(strings.Fields(o.sql), " ")
		out[o.name] = o
	}
	return out, rows.Err()
}

// tableColumns lists a table's columns: name, declared type, not null, default, primary key
// position and hidden (generated) flag.
func tableColumns(ctx context.Context, q querier, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type, "notnull", coalesce(dflt_value, ''), pk, hidden FROM pragma_table_xinfo(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, typ, dflt string
		var notNull, pk, hidden int
		if err := rows.Scan(&name, &typ, &notNull, &dflt, &pk, &hidden); err != nil {
			return nil, err
		}
		c := name + " " + typ
		if notNull != 0 {
			c += " NOT NULL"
		}
		if dflt != "" {
			c += " DEFAULT " + dflt
		}
		if pk != 0 {
			c += " PRIMARY KEY"
		}
		if hidden != 0 {
			c += " GENERATED"
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// schemaProblems compares the store's schema with what the migrations make and says what
// differs, one sentence each; none for a sound schema. Only a store at SchemaVersion is
// compared (an older one is upgraded first, a newer one refused).
func (s *Store) schemaProblems(ctx context.Context) ([]string, error) {
	want, wantColumns, err := expectedSchema()
	if err != nil {
		return nil, err
	}
	have, err := readSchema(ctx, s.db)
	if err != nil {
		return nil, err
	}
	var problems []string
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w := want[n]
		h, ok := have[n]
		switch {
		case !ok && rebuiltObjects[n]:
		case !ok && w.kind != "table" && !hasObject(have, w.table):
			// an index or trigger of a missing table: the table's sentence says it
		case !ok:
			problems = append(problems, fmt.Sprintf("the %s %s is missing", describeKind(w), n))
		case h.kind != w.kind:
			problems = append(problems, fmt.Sprintf("%s is a %s where the migrations make a %s", n, h.kind, w.kind))
		case h.sql != w.sql:
			problems = append(problems, s.describeDifference(ctx, w, h, wantColumns[n]))
		}
	}
	var extra []string
	for n, h := range have {
		if _, ok := want[n]; !ok {
			extra = append(extra, fmt.Sprintf("the %s %s is not made by the migrations", h.kind, n))
		}
	}
	sort.Strings(extra)
	return append(problems, extra...), nil
}

func hasObject(objects map[string]schemaObject, name string) bool {
	_, ok := objects[name]
	return ok
}

func describeKind(o schemaObject) string {
	if o.kind == "table" && strings.HasPrefix(strings.ToUpper(o.sql), "CREATE VIRTUAL TABLE") {
		return "full-text table"
	}
	return o.kind
}

// describeDifference says how an object differs: a table by its columns where they differ,
// anything else by its definition.
func (s *Store) describeDifference(ctx context.Context, want, have schemaObject, wantColumns []string) string {
	if want.kind == "table" {
		if cols, err := tableColumns(ctx, s.db, have.name); err == nil {
			var diffs []string
			haveSet, wantSet := map[string]string{}, map[string]string{}
			for _, c := range cols {
				haveSet[strings.Fields(c)[0]] = c
			}
			for _, c := range wantColumns {
				name := strings.Fields(c)[0]
				wantSet[name] = c
				switch h, ok := haveSet[name]; {
				case !ok:
					diffs = append(diffs, "missing column "+name)
				case h != c:
					diffs = append(diffs, fmt.Sprintf("column %q where the migrations make %q", h, c))
				}
			}
			for _, c := range cols {
				if name := strings.Fields(c)[0]; wantSet[name] == "" {
					diffs = append(diffs, "extra column "+name)
				}
			}
			if len(diffs) > 0 {
				return fmt.Sprintf("the table %s differs: %s", have.name, strings.Join(diffs, ", "))
			}
		}
	}
	return fmt.Sprintf("the %s %s differs: it is `%s` where the migrations make `%s`", describeKind(want), have.name, have.sql, want.sql)
}

// checkSchema compares the schema at open. A difference is damage: a store opened for
// writing is refused (nothing is written to it), one opened for reading stays open so that
// it can be inspected, and its Damaged and Check say what differs.
func (s *Store) checkSchema(ctx context.Context) error {
	problems, err := s.schemaProblems(ctx)
	if err != nil {
		if isCorrupt(err) {
			return err
		}
		return fmt.Errorf("cannot read the schema of the store %s: %w", s.path, err)
	}
	if len(problems) == 0 {
		return nil
	}
	s.health.Lock()
	s.health.schema = problems
	s.health.damaged = "its schema differs from what its migrations make: " + strings.Join(problems, "; ")
	s.health.Unlock()
	if s.readOnly {
		return nil
	}
	return s.damagedError()
}
