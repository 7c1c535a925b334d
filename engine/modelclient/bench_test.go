package modelclient_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/cputime"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
)

var (
	screenOnce sync.Once
	screenJPEG []byte
)

// screenshot is a JPEG the size of GUI Odyssey's (1080x2400, a few hundred KB): bands of
// colour like an app's screen, with noise so that it does not compress to nothing.
func screenshot(b testing.TB) []byte {
	screenOnce.Do(func() {
		img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
		r := rand.New(rand.NewPCG(1, 2))
		for y := 0; y < 2400; y++ {
			band := uint8(y / 120 * 37)
			for x := 0; x < 1080; x++ {
				n := uint8(r.IntN(24))
				img.SetRGBA(x, y, color.RGBA{band + n, uint8(x/60*13) + n, 200 - band/2 + n, 255})
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 70}); err != nil {
			panic(err)
		}
		screenJPEG = buf.Bytes()
	})
	return screenJPEG
}

// BenchmarkClientOverhead is the client's own cost: a fake server that answers at once (it
// reads each body and skips decoding it), 32 requests in flight, each a GUI Odyssey prompt with
// one screenshot of GUI Odyssey's size, base64-encoded into the body per request.
//
//	scripts/go.sh test -run '^$' -bench ClientOverhead -cpu 2 -benchtime 4000x ./engine/modelclient/
func BenchmarkClientOverhead(b *testing.B) {
	benchClient(b, fakeserver.Options{Skim: true})
}

// BenchmarkClientAndDecodingServer is the same with a server that decodes and checks every
// request (as the tests' fake server does): the server's JSON decoding of the image dominates.
func BenchmarkClientAndDecodingServer(b *testing.B) {
	benchClient(b, fakeserver.Options{})
}

func benchClient(b *testing.B, opt fakeserver.Options) {
	img := screenshot(b)
	srv := fakeserver.New(opt)
	defer srv.Close()
	c, err := modelclient.New(modelclient.Config{BaseURL: srv.URL, Model: "bench", Concurrency: 32, Key: noKey()})
	if err != nil {
		b.Fatal(err)
	}
	prompt := "Previous screenshots: <image>\nThe goal is: open the calendar and add an event at 9 am.\nPrevious actions: CLICK [[500,300]]; TYPE meeting\nWhat is the next action?"
	b.SetBytes(int64(len(img)))
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), cputime.Process()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				_, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{
					modelclient.User(modelclient.Text(prompt), modelclient.Image("image/jpeg", img)),
				}})
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	// What two cores of our own would do: requests per CPU second of this process, times two
	// (client and server both count). On a shared machine the wall rate also counts waiting.
	if used := cputime.Process() - cpu; used > 0 {
		b.ReportMetric(2*float64(b.N)/used.Seconds(), "req/s/2cpu")
	}
	b.ReportMetric(float64(len(img))/1024, "KB/image")
}
