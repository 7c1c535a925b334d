// Package dataset writes the store's episodes, steps and evaluation answers as a Hugging Face
// dataset (Parquet files in the Hub's layout with a dataset card) and reads such a folder
// back. It knows no SQL: the store streams rows in, and streams rows out of Import.
//
// Layout of an exported folder DEST:
//
//	DEST/README.md                                   the dataset card: configs and features
//	DEST/episodes/<split>-00000-of-00001.parquet     one row per episode
//	DEST/steps/<split>-00000-of-00002.parquet        one row per step, with its frame
//	DEST/annotations/<split>-00000-of-00001.parquet  one row per evaluation answer
//
// Files are sharded at about Options.ShardBytes and named as the Hub names shards.
package dataset

import (
	"bytes"
	"encoding/binary"
	"time"
)

// The configs (the Hub's "subsets") of an exported dataset.
const (
	ConfigEpisodes    = "episodes"
	ConfigSteps       = "steps"
	ConfigAnnotations = "annotations"
)

// Configs lists the configs in the order the card names them.
var Configs = []string{ConfigEpisodes, ConfigSteps, ConfigAnnotations}

// DefaultShardBytes is the size at which a config's split starts a new file (the Hub's
// datasets use about 500 MB).
const DefaultShardBytes = 500 << 20

// DefaultSplit is the split every row goes to when no store split is exported.
const DefaultSplit = "train"

// EpisodeRow is one row of the episodes config.
type EpisodeRow struct {
	// EpisodeID is the source's own id (leading zeros kept).
	EpisodeID   string `parquet:"episode_id"`
	Source      string `parquet:"source"`
	Task        string `parquet:"task"`
	Instruction string `parquet:"instruction"`
	MetaTask    string `parquet:"meta_task"`
	NumSteps    int64  `parquet:"num_steps"`
	// Reward is the episode's total reward, nil for a source without rewards (GUI Odyssey).
	Reward *float64 `parquet:"reward,optional"`
	// Category, Device and Apps are the facets most sources share (GUI Odyssey's category,
	// device and apps; empty where a source has none).
	Category string   `parquet:"category"`
	Device   string   `parquet:"device"`
	Apps     []string `parquet:"apps,list"`
	// Facets holds every facet the Explorer filters by (JSON object of lists), Metadata the
	// source's own metadata (JSON object): the rest, kept whole so an import loses nothing.
	Facets   string `parquet:"facets"`
	Metadata string `parquet:"metadata"`
}

// Image is the datasets library's Image feature as Parquet stores it.
type Image struct {
	// PNG and JPEG are compressed already: stored as they are
	Bytes []byte `parquet:"bytes,plain,uncompressed"`
	Path  string `parquet:"path"`
}

// StepRow is one row of the steps config.
type StepRow struct {
	EpisodeID string `parquet:"episode_id"`
	Source    string `parquet:"source"`
	Step      int64  `parquet:"step"`
	// The action typed: its kind, its first point and, for a drag or scroll, its last (as
	// fractions of the frame, nil when the action has none) and its text.
	ActionKind string   `parquet:"action_kind"`
	ActionX    *float64 `parquet:"action_x,optional"`
	ActionY    *float64 `parquet:"action_y,optional"`
	ActionX2   *float64 `parquet:"action_x2,optional"`
	ActionY2   *float64 `parquet:"action_y2,optional"`
	ActionText string   `parquet:"action_text"`
	// Action is the source's own text for the action (its raw encoding when it has one),
	// ActionJSON the whole typed action as the store keeps it.
	Action         string  `parquet:"action"`
	ActionJSON     string  `parquet:"action_json"`
	Reward         float64 `parquet:"reward"`
	Instruction    string  `parquet:"instruction"`
	ObservationRef string  `parquet:"observation_ref"`
	// Extra holds the step's source-specific fields (JSON object).
	Extra string `parquet:"extra"`
	// Image is the step's frame (PNG or JPEG bytes as stored), nil for a step without one.
	Image *Image `parquet:"image,optional"`

	// Observation is the frame kept in the store; when nil the exporter reads ObservationRef.
	Observation []byte `parquet:"-"`
}

// AnnotationRow is one row of the annotations config: one answer of an evaluation study.
type AnnotationRow struct {
	Project  string `parquet:"project"`
	AnswerID int64  `parquet:"answer_id"`
	// Participant is a pseudonym ("p" and the store's participant number) unless the export
	// was asked for names.
	Participant string `parquet:"participant"`
	UnitID      int64  `parquet:"unit_id"`
	UnitIndex   int64  `parquet:"unit_index"`
	UnitKind    string `parquet:"unit_kind"`
	// Assignment is the bundle's position in the data file, -1 for screening and gold units.
	Assignment  int64     `parquet:"assignment"`
	DialoguePos int64     `parquet:"dialogue_pos"`
	TypePos     int64     `parquet:"type_pos"`
	TypeName    string    `parquet:"type_name"`
	Turn        int64     `parquet:"turn"`
	Question    string    `parquet:"question"`
	Value       string    `parquet:"value"`
	AnsweredAt  time.Time `parquet:"answered_at,timestamp(millisecond)"`
	PageShownAt time.Time `parquet:"page_shown_at,timestamp(millisecond)"`
	TimeOnPage  int64     `parquet:"time_on_page_ms"`
}

// feature is one column as the dataset card describes it (the datasets library's dtype).
type feature struct {
	name  string
	dtype string // "string", "int64", "float64", "image", "timestamp[ms, tz=UTC]", "list:string"
}

var features = map[string][]feature{
	ConfigEpisodes: {
		{"episode_id", "string"}, {"source", "string"}, {"task", "string"}, {"instruction", "string"},
		{"meta_task", "string"}, {"num_steps", "int64"}, {"reward", "float64"}, {"category", "string"},
		{"device", "string"}, {"apps", "list:string"}, {"facets", "string"}, {"metadata", "string"},
	},
	ConfigSteps: {
		{"episode_id", "string"}, {"source", "string"}, {"step", "int64"}, {"action_kind", "string"},
		{"action_x", "float64"}, {"action_y", "float64"}, {"action_x2", "float64"}, {"action_y2", "float64"},
		{"action_text", "string"}, {"action", "string"}, {"action_json", "string"}, {"reward", "float64"},
		{"instruction", "string"}, {"observation_ref", "string"}, {"extra", "string"}, {"image", "image"},
	},
	ConfigAnnotations: {
		{"project", "string"}, {"answer_id", "int64"}, {"participant", "string"}, {"unit_id", "int64"},
		{"unit_index", "int64"}, {"unit_kind", "string"}, {"assignment", "int64"}, {"dialogue_pos", "int64"},
		{"type_pos", "int64"}, {"type_name", "string"}, {"turn", "int64"}, {"question", "string"},
		{"value", "string"}, {"answered_at", "timestamp[ms, tz=UTC]"}, {"page_shown_at", "timestamp[ms, tz=UTC]"},
		{"time_on_page_ms", "int64"},
	},
}

// ImageExt names the format of an encoded frame by its magic bytes: "png", "jpg", or "" for
// neither.
func ImageExt(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "jpg"
	}
	return ""
}

// ImageSize reads the width and height of a PNG or JPEG from its header, without decoding it.
func ImageSize(b []byte) (w, h int, ok bool) {
	switch ImageExt(b) {
	case "png":
		if len(b) < 24 || string(b[12:16]) != "IHDR" {
			return 0, 0, false
		}
		return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24])), true
	case "jpg":
		for i := 2; i+9 < len(b); {
			if b[i] != 0xFF {
				return 0, 0, false
			}
			marker := b[i+1]
			if marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) {
				i += 2
				continue
			}
			n := int(binary.BigEndian.Uint16(b[i+2 : i+4]))
			if marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
				return int(binary.BigEndian.Uint16(b[i+7 : i+9])), int(binary.BigEndian.Uint16(b[i+5 : i+7])), true
			}
			i += 2 + n
		}
	}
	return 0, 0, false
}
