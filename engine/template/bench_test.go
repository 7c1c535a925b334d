package template

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// benchFS builds a realistic multi-token task: the W1 WikiHow-like search/article templates
// repeated over n tokens.
func benchFS(n int) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, tmpl := range ExampleTemplates() {
		data, _ := Examples().(interface{ ReadFile(string) ([]byte, error) }).ReadFile(tmpl)
		fsys[tmpl] = &fstest.MapFile{Data: data}
	}
	var task strings.Builder
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			fsys[fmt.Sprintf("tasks/search-s%d.conf", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
				"query: item number %d (blue)\nkeywords: item,number,%d,blue\napp: Shop\npackage: com.example.shop\nactivity: .Main\nlog_tag: S\n", i, i))}
			fmt.Fprintf(&task, "search-s%d sr\n", i)
		case 1:
			fsys[fmt.Sprintf("tasks/cart-c%d.conf", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
				"product: Product %d\nproduct_words: Product,%d\nsku: SKU-%d.X\nquantity: %d\n", i, i, i, i%5+1))}
			fmt.Fprintf(&task, "cart-c%d s\n", i)
		default:
			fsys[fmt.Sprintf("tasks/settings_toggle-t%d.conf", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
				"setting: Setting %d\nstate: on\nchecked: true\nmax_steps: 20\nkeywords: setting,%d\n", i, i))}
			fmt.Fprintf(&task, "settings_toggle-t%d r\n", i)
		}
	}
	fsys["tasks/bench.task"] = &fstest.MapFile{Data: []byte(task.String())}
	return fsys
}

func benchmarkInstantiate(b *testing.B, n int) {
	fsys := benchFS(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := InstantiateFS(fsys, "tasks/bench.task", "templates", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The live preview re-instantiates on every keystroke; its budget is 100 ms.
func BenchmarkInstantiate3Tokens(b *testing.B)  { benchmarkInstantiate(b, 3) }
func BenchmarkInstantiate10Tokens(b *testing.B) { benchmarkInstantiate(b, 10) }
func BenchmarkInstantiate50Tokens(b *testing.B) { benchmarkInstantiate(b, 50) }

func BenchmarkParseSlots(b *testing.B) {
	data, _ := Examples().(interface{ ReadFile(string) ([]byte, error) }).ReadFile("templates/search.textproto.template")
	text := strings.Repeat(string(data), 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ParseSlots(text)
	}
}

// BenchmarkParseLongLine parses a 680 KB task definition written on one line: token columns
// are counted only for errors, so the cost stays linear in the line's length.
func BenchmarkParseLongLine(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`id: "x" name: "y" description: "z" `)
	for sb.Len() < 680_000 {
		sb.WriteString(`vocabulary: "word" `)
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := FormatTextproto(text); err != nil {
			b.Fatal(err)
		}
	}
}
