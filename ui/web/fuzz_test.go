package web

import (
	"net/url"
	"strings"
	"testing"
)

// The request decoders take any bytes without panicking, and what they accept is within their
// bounds.
func FuzzDecodeAction(f *testing.F) {
	for _, s := range []string{"do=next&form=a&at=b", "do=edit&form=a&at=b&turn=3&kind=flow&key=q&value=v&click=check",
		"do=send&form=a&at=b&text=hello", "do=edit&turn=-1&kind=comparative&value=x&form=f&at=a", "do=focus&turn=2&form=f&at=a",
		"do=edit&form=a&at=b&turn=1&turn=2", "%zz", "do=send&text=" + strings.Repeat("x", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		v, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		a, err := decodeAction(v)
		if err != nil {
			return
		}
		if len(a.Form) > 64 || len(a.At) > 64 || len(a.Edit.Key) > 2000 || len(a.Edit.Value) > 2000 || len([]rune(a.Text)) > maxMessage {
			t.Fatalf("accepted an oversized field: %+v", a)
		}
		if a.Edit.Turn < -1 || a.Turn < -1 {
			t.Fatalf("accepted turn %d/%d", a.Edit.Turn, a.Turn)
		}
	})
}

func FuzzParseIdentity(f *testing.F) {
	for _, s := range []string{"worker_id=w1&token=t", "PROLIFIC_PID=p&STUDY_ID=s&SESSION_ID=x&token=t",
		"workerId=m&assignmentId=a&hitId=h&token=t", "worker_id=%01&token=t", "worker_id=a&workerId=b&token=t", "token="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		id, err := parseIdentity(v)
		if err != nil {
			return
		}
		if id.Worker == "" || id.Token == "" || len(id.Worker) > maxIDLength || checkID(id.Worker, "id") != nil {
			t.Fatalf("accepted %+v", id)
		}
	})
}
