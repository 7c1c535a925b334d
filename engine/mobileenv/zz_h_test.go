package mobileenv

import (
	"os"
	"testing"
	"time"
)

func TestZZHang(t *testing.T) {
	b, _ := os.ReadFile("/tmp/fuzzcur.pkl")
	t.Logf("first bytes %q", b[:40])
	start := time.Now()
	ps, err := DecodeAll("f", b)
	t.Logf("decode %v %v", time.Since(start), err)
	if err != nil {
		return
	}
	for _, p := range ps {
		_, err := CanonicalJSON(p.Value)
		t.Logf("canon %v %v", time.Since(start), err)
		e, err := Encode(p.Value)
		t.Logf("encode %v %v", time.Since(start), err)
		_, err = Decode(e)
		t.Logf("decode2 %v %v", time.Since(start), err)
	}
}
