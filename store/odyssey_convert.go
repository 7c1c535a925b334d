package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// OdysseyPart is one part of a split read back for the converter: its episodes as annotations
// in the split's order, and the stored screenshot reference of each screenshot file name they
// use.
type OdysseyPart struct {
	Split    string // the split's full name
	Episodes []*odyssey.Annotation
	Refs     map[string]string
}

// ImagePath is the screenshot's stored reference, or the file name when it has none (the
// screenshot was missing when the episode was imported).
func (p *OdysseyPart) ImagePath(name string) string {
	if ref, ok := p.Refs[name]; ok {
		return ref
	}
	return name
}

// Missing counts the steps of the part whose screenshot has no stored reference.
func (p *OdysseyPart) Missing() int {
	n := 0
	for _, a := range p.Episodes {
		for i := range a.Steps {
			if _, ok := p.Refs[a.Steps[i].Screenshot]; !ok {
				n++
			}
		}
	}
	return n
}

// Zipped counts the steps of the part whose screenshot is a member of a zip archive (a
// reference no training code opens).
func (p *OdysseyPart) Zipped() int {
	n := 0
	for _, a := range p.Episodes {
		for i := range a.Steps {
			if strings.HasPrefix(p.Refs[a.Steps[i].Screenshot], odyssey.ZipRefPrefix) {
				n++
			}
		}
	}
	return n
}

// OdysseySplitPart reads one part ("train", "test") of a split, found by ResolveSplitName's
// rules. Each annotation's File is the file the episode was imported from (when the store
// knows it), so that errors about its steps name it.
func (r reader) OdysseySplitPart(ctx context.Context, split, part string) (*OdysseyPart, error) {
	parts, err := r.OdysseyParts(ctx, split, part)
	if err != nil {
		return nil, err
	}
	return parts[0], nil
}

// OdysseyParts is OdysseySplitPart for several parts of one split, which is found and read
// once.
func (r reader) OdysseyParts(ctx context.Context, split string, parts ...string) ([]*OdysseyPart, error) {
	name, err := r.ResolveSplitName(ctx, split)
	if err != nil {
		return nil, err
	}
	sp, err := r.Split(ctx, name)
	if err != nil {
		return nil, err
	}
	out := make([]*OdysseyPart, len(parts))
	for i, part := range parts {
		if out[i], err = r.odysseyPart(ctx, name, sp.Parts[part], part); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// odysseyPart reads the episodes keys of part part of split name.
func (r reader) odysseyPart(ctx context.Context, name string, keys []episode.Key, part string) (*OdysseyPart, error) {
	ids := []string{}
	for _, k := range keys {
		ids = append(ids, k.ExternalID)
	}
	out := &OdysseyPart{Split: name, Refs: map[string]string{}}
	err := r.OdysseyRecords(ctx, ids, func(rec odyssey.Record) error {
		data, err := odyssey.EncodeAnnotation(rec, "")
		if err != nil {
			return err
		}
		file := "store:" + rec.ExternalID
		var meta struct {
			File string `json:"file"`
		}
		if json.Unmarshal(rec.Metadata, &meta) == nil && meta.File != "" {
			file = meta.File
		}
		a, err := odyssey.ParseAnnotation(file, data)
		if err != nil {
			return err
		}
		out.Episodes = append(out.Episodes, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rows, err := r.q.QueryContext(ctx, `SELECT json_extract(s.extra, '$.screenshot'), s.observation_ref FROM steps s
		JOIN split_members m ON m.episode_id = s.episode_id JOIN splits sp ON sp.id = m.split_id
		WHERE sp.name = ? AND m.part = ?`, name, part)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var shot sql.NullString
		var ref string
		if err := rows.Scan(&shot, &ref); err != nil {
			return nil, err
		}
		if shot.Valid && ref != "" {
			out.Refs[shot.String] = ref
		}
	}
	return out, rows.Err()
}
