// Package mobileenvtest writes synthetic Mobile-Env annotation data for tests of the tools that
// read and rewrite it: raw web-tool dumps with the task definitions they refer to, and resaved
// files of a chosen size. The content is made up (patterned screens, fixed hierarchies); only
// the shapes follow the recorder's files.
package mobileenvtest

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
)

// Definitions are the task definitions the dumps refer to, by file name (without .textproto).
var Definitions = map[string]string{
	"search": `id: "search-1"
name: "Search - find an article"
vocabulary: ["lobster", "crab", "shrimp"]
`,
	"settings": `id: "settings-1"
name: "Settings - turn on the flashlight"
vocabulary: ["on", "off"]
`,
}

// WriteDefinitions writes Definitions into dir as <name>.textproto.
func WriteDefinitions(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range Definitions {
		if err := os.WriteFile(filepath.Join(dir, name+".textproto"), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// screenSide is the side of the square RGB screens of synthetic records (48 KiB each).
const screenSide = 128

// Trajectory is a web-tool trajectory of records step records after the initial one: TOUCH,
// TEXT (input token index tok) and LIFT actions, a reward on the last record, a patterned
// screen per record made from seed.
func Trajectory(taskID, task string, records int, seed uint32) *mobileenv.List {
	u1, _ := mobileenv.NewDType("u1")
	f8, _ := mobileenv.NewDType("f8")
	traj := &mobileenv.List{}
	for j := 0; j <= records; j++ {
		d := mobileenv.NewDict()
		if j == 0 {
			d.Set("task_id", mobileenv.NewStr(taskID))
			d.Set("task", mobileenv.NewStr(task))
		} else {
			switch j % 3 {
			case 0:
				d.Set("action_type", int64(0))
				pos := make([]byte, 16)
				binary.LittleEndian.PutUint64(pos, 0x3fe0000000000000)     // 0.5
				binary.LittleEndian.PutUint64(pos[8:], 0x3fd0000000000000) // 0.25
				d.Set("touch_position", &mobileenv.NDArray{DType: f8, Shape: []int{2}, Data: pos})
			case 1:
				d.Set("action_type", int64(3))
				d.Set("input_token", int64(j%2))
			default:
				d.Set("action_type", int64(1))
			}
			reward := int64(0)
			if j == records {
				reward = 1
			}
			d.Set("reward", reward)
		}
		screen := make([]byte, screenSide*screenSide*3)
		s := seed*2654435761 + uint32(j)*40503
		for i := 0; i < len(screen); i += 4 {
			s ^= s << 13
			s ^= s >> 17
			s ^= s << 5
			binary.LittleEndian.PutUint32(screen[i:min(i+4, len(screen))], s)
		}
		d.Set("observation", &mobileenv.NDArray{DType: u1, Shape: []int{screenSide, screenSide, 3}, Data: screen})
		traj.Items = append(traj.Items, d)
	}
	return traj
}

// recordBytes is about what one synthetic record takes in a pickle.
const recordBytes = screenSide*screenSide*3 + 200

// WriteDumps writes files raw dumps dir/anno.<i>.pkl (i from 0) of about total bytes together,
// their trajectories alternating between the two Definitions, and returns the resave pattern
// "dir/anno.%d.pkl". Every third file holds two trajectories back to back, as the web tool's
// dumps sometimes do.
func WriteDumps(dir string, files int, total int64) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	perTraj := max(1, int(total/recordBytes)/(files+files/3))
	ids := [][2]string{{"search-1", "Search - find an article"}, {"settings-1", "Settings - turn on the flashlight"}}
	n := 0
	for i := 0; i < files; i++ {
		var data []byte
		for k := 0; k < 1+btoi(i%3 == 2); k++ {
			id := ids[n%2]
			b, err := mobileenv.Encode(Trajectory(id[0], id[1], perTraj, uint32(n)))
			if err != nil {
				return "", err
			}
			data = append(data, b...)
			n++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("anno.%d.pkl", i)), data, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "anno.%d.pkl"), nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteResaved writes a resaved file of about total bytes for definition "search": trajs
// trajectories with input tokens already translated, as `pickle resave` leaves them.
func WriteResaved(path string, trajs int, total int64) error {
	perTraj := max(3, int(total/recordBytes)/trajs)
	l := &mobileenv.List{}
	for t := 0; t < trajs; t++ {
		traj := Trajectory("search-1", "Search - find an article", perTraj, uint32(1000+t))
		for _, it := range traj.Items {
			d := it.(*mobileenv.Dict)
			if v, ok := d.Get("input_token"); ok {
				d.Set("input_token", mobileenv.NewStr([]string{"lobster", "crab"}[v.(int64)]))
			}
		}
		l.Items = append(l.Items, traj)
	}
	meta := mobileenv.NewDict()
	meta.Set("otask_id", mobileenv.NewStr("search-1"))
	meta.Set("otask_name", mobileenv.NewStr("Search - find an article"))
	meta.Set("task_definition_id", mobileenv.NewStr("search"))
	root := mobileenv.NewDict()
	root.Set("meta", meta)
	root.Set("trajectories", l)
	b, err := mobileenv.Encode(root)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
