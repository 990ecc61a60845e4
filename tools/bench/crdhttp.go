package main

// crdstore over its Kubernetes HTTP gateway, JSON over HTTP/1.1 as
// client-go speaks it to a server without TLS: one keep-alive connection
// per client, one per watcher. Bodies are read whole and not parsed; the
// few fields the load needs are found in the bytes.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

type crdHTTP struct {
	base string // http://127.0.0.1:port
	size int
	// watches is the watchers' transport: a connection per watch.
	watches *http.Transport
}

func newTransport(conns int) *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

func (t *crdHTTP) collection(space string) string {
	return t.base + "/apis/" + group + "/" + version + "/namespaces/" + space + "/" + plural
}

// do sends one request and reads the whole answer; a status other than
// want is an error carrying the body.
func do(ctx context.Context, hc *http.Client, method, u string, body []byte, want int) ([]byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %d %s", method, u, resp.StatusCode, bytes.TrimSpace(b))
	}
	return b, nil
}

func (t *crdHTTP) clients(n int) ([]client, error) {
	out := make([]client, n)
	for i := range out {
		// A transport of its own: the client keeps its one connection.
		out[i] = &httpClient{t: t, hc: &http.Client{Transport: newTransport(1)}, rv: map[string]string{}}
	}
	return out, nil
}

func (t *crdHTTP) revision(ctx context.Context, space string) (string, error) {
	b, err := do(ctx, http.DefaultClient, "GET", t.collection(space)+"?limit=1", nil, http.StatusOK)
	if err != nil {
		return "", err
	}
	return string(field(b, "resourceVersion")), nil
}

func (t *crdHTTP) watch(ctx context.Context, _ int, space, rv string, seen func([]byte), cut func()) error {
	hc := &http.Client{Transport: t.watches}
	failures := 0
	for ctx.Err() == nil {
		u := t.collection(space) + "?watch=true&resourceVersion=" + url.QueryEscape(rv)
		req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		expired := false
		if err == nil {
			if resp.StatusCode == http.StatusGone {
				expired = true
			}
			lines := bufio.NewScanner(resp.Body)
			lines.Buffer(make([]byte, 64<<10), 8<<20)
			for resp.StatusCode == http.StatusOK && lines.Scan() {
				line := lines.Bytes()
				switch string(field(line, "type")) {
				case "ERROR":
					// A 410 Expired or 429 cut-off; the stream ends here.
					expired = bytes.Contains(line, []byte(`"code":410`))
					continue
				case "BOOKMARK":
				default:
					failures = 0
					seen(field(line, "name"))
				}
				if r := field(line, "resourceVersion"); r != nil {
					rv = string(r)
				}
			}
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			return nil
		}
		cut()
		failures++
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Duration(failures) * 20 * time.Millisecond):
		}
		if expired || failures > 3 {
			// Go on from now; the events between are lost.
			if rv, err = t.revision(ctx, space); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *crdHTTP) close() { t.watches.CloseIdleConnections() }

type httpClient struct {
	t  *crdHTTP
	hc *http.Client
	rv map[string]string
}

func (c *httpClient) create(ctx context.Context, space, name string) error {
	b, err := do(ctx, c.hc, "POST", c.t.collection(space), object(space, name, 0, "", c.t.size), http.StatusCreated)
	if err != nil {
		return err
	}
	c.rv[name] = string(field(b, "resourceVersion"))
	return nil
}

func (c *httpClient) update(ctx context.Context, space, name string, gen int) error {
	b, err := do(ctx, c.hc, "PUT", c.t.collection(space)+"/"+name, object(space, name, gen, c.rv[name], c.t.size), http.StatusOK)
	if err != nil {
		return err
	}
	c.rv[name] = string(field(b, "resourceVersion"))
	return nil
}

func (c *httpClient) get(ctx context.Context, space, name string) error {
	_, err := do(ctx, c.hc, "GET", c.t.collection(space)+"/"+name, nil, http.StatusOK)
	return err
}

func (c *httpClient) list(ctx context.Context, space string, limit int64) (int, error) {
	n, token := 0, ""
	// Items are counted by their kind: every item carries it, the list's
	// own kind is WidgetList.
	marker := []byte(`"kind":"` + kind + `"`)
	for {
		u := c.t.collection(space)
		if limit > 0 {
			u += "?limit=" + strconv.FormatInt(limit, 10)
			if token != "" {
				u += "&continue=" + url.QueryEscape(token)
			}
		}
		b, err := do(ctx, c.hc, "GET", u, nil, http.StatusOK)
		if err != nil {
			return n, err
		}
		n += bytes.Count(b, marker)
		if token = string(field(b, "continue")); token == "" {
			return n, nil
		}
	}
}

func (c *httpClient) load(ctx context.Context, space string, names []string) error {
	for _, name := range names {
		if _, err := do(ctx, c.hc, "POST", c.t.collection(space), object(space, name, 0, "", c.t.size), http.StatusCreated); err != nil {
			return err
		}
	}
	return nil
}

func (c *httpClient) close() { c.hc.CloseIdleConnections() }
