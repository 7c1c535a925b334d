package store

import (
	"context"
	"sync"
	"testing"
)

func TestTemplateFoldersAreRemembered(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.AddTemplateFolder(ctx, "/data/a", "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTemplateFolder(ctx, "/data/b", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTemplateFolder(ctx, "/data/a", "a again"); err != nil { // reopened: moves to the top
		t.Fatal(err)
	}
	got, err := s.TemplateFolders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != "/data/a" || got[1].Path != "/data/b" || got[0].Kind != TemplateFolderKind {
		t.Fatalf("folders %+v", got)
	}
	o, err := s.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.TemplateFolders != 2 || len(o.Recent) != 2 || o.Recent[0].Kind != TemplateFolderKind {
		t.Fatalf("overview %+v", o)
	}
	if err := s.AddTemplateFolder(ctx, "", "x"); err == nil {
		t.Fatal("empty path accepted")
	}
	if err := s.RemoveTemplateFolder(ctx, "/data/b"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.TemplateFolders(ctx); len(got) != 1 {
		t.Fatalf("after remove: %+v", got)
	}
}

func TestTemplateFoldersConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if err := s.AddTemplateFolder(ctx, "/same", "same"); err != nil {
					t.Error(err)
				}
				if _, err := s.TemplateFolders(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if got, _ := s.TemplateFolders(ctx); len(got) != 1 {
		t.Fatalf("%+v", got)
	}
}
