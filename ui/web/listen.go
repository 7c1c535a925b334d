package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// DefaultAddr is where a study listens unless told otherwise: this machine only, on the
// original's local port.
const DefaultAddr = "127.0.0.1:3008"

// Loopback reports whether an address (HOST:PORT) listens on this machine only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrPublic is returned by Listen for an address other machines can reach when that was not
// chosen explicitly.
var ErrPublic = errors.New("this address can be reached from other machines; choose that explicitly (eval serve --public, or Allow other machines in the app)")

// Listen opens the study's address. Other interfaces than loopback need public.
func Listen(addr string, public bool) (net.Listener, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("address %q: give HOST:PORT, e.g. %s", addr, DefaultAddr)
	}
	if !Loopback(addr) && !public {
		return nil, fmt.Errorf("%s: %w", addr, ErrPublic)
	}
	return net.Listen("tcp", addr)
}

// BaseURL is the address links carry for a listener: base when given (a tunnel's or reverse
// proxy's address), else the listener's own, with this machine's network address in place of
// an unspecified one (0.0.0.0, ::).
func BaseURL(ln net.Listener, tlsOn bool, base string) string {
	if base != "" {
		return strings.TrimSuffix(base, "/")
	}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = outboundIP()
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// outboundIP is this machine's address on its network (no packet is sent), 127.0.0.1 when it
// has none.
func outboundIP() string {
	c, err := net.Dial("udp", "192.0.2.1:9")
	if err != nil {
		return "127.0.0.1"
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}

// Reach says who can open the study's links at an address.
func Reach(addr string) string {
	if Loopback(addr) {
		return "only this computer (loopback): participants use a browser on this machine, or reach it through your own tunnel or reverse proxy"
	}
	return "any computer that can reach this one over the network (and the internet, if your router or firewall lets it through): only people with a link get in"
}

// Serve serves the study on a listener until ctx ends, with TLS when certFile and keyFile are
// given; it shuts down gracefully (answers being saved finish).
func (s *Server) Serve(ctx context.Context, ln net.Listener, certFile, keyFile string) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 32 << 10,
		TLSConfig: &tls.Config{MinVersion: tls.VersionTLS12}}
	done := make(chan error, 1)
	go func() {
		if certFile != "" || keyFile != "" {
			done <- srv.ServeTLS(ln, certFile, keyFile)
		} else {
			done <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-done:
		s.Close()
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(shut)
		s.Close()
		<-done
		return err
	}
}
