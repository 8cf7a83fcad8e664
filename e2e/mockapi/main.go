// Command mockapi serves the simulated Mintlify API on its own address for e2e/image.sh. Its one
// key comes from MINTLIFY_API_KEY (never a flag); GET /-/requests answers the number of
// requests recorded, so a check can tell whether the exporter asked anything.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// requestsPath is outside the API's own /v1 and /v2.
const requestsPath = "/-/requests"

// maxPaths bounds -paths: the simulated site is generated in memory.
const maxPaths = 100_000

type projectList []string

func (p *projectList) String() string { return strings.Join(*p, ",") }
func (p *projectList) Set(v string) error {
	*p = append(*p, v)
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mockapi:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("mockapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	paths := fs.Int("paths", 200, fmt.Sprintf("page paths of each project's site (1-%d)", maxPaths))
	conversations := fs.Int("conversations-per-hour", 0, fmt.Sprintf("assistant conversations an hour of each site, which then also gets 20 feedback entries a day (0-%d)", maxConversationsPerHour))
	fault := fs.String("fault", "", "misbehave for ever on the cursor-paged endpoints: "+strings.Join(slices.Sorted(maps.Keys(cursorFaults)), ", "))
	var projects projectList
	fs.Var(&projects, "project", "project id the key owns (repeatable; at least one)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, err := newServer(getenv("MINTLIFY_API_KEY"), projects, *paths)
	if err != nil {
		return err
	}
	if err := hostile(srv, projects, *conversations, *fault); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("-listen: %w", err)
	}
	hs := &http.Server{Handler: handler(srv), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "mockapi: serving projects %s on http://%s\n", projects.String(), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func newServer(key string, projects []string, paths int) (*mockapi.Server, error) {
	switch {
	case key == "":
		return nil, errors.New("MINTLIFY_API_KEY is empty: set the one key the simulated API accepts")
	case !strings.HasPrefix(key, "mint_"):
		return nil, errors.New("MINTLIFY_API_KEY does not start with mint_, as admin keys do")
	case len(projects) == 0:
		return nil, errors.New("no -project: give the id of at least one project")
	case paths < 1 || paths > maxPaths:
		return nil, fmt.Errorf("-paths %d is not between 1 and %d", paths, maxPaths)
	}
	sites := map[string]mockapi.Site{}
	for i, id := range projects {
		if id == "" || strings.ContainsAny(id, "/?#% \t\n") {
			return nil, fmt.Errorf("-project %q is not a usable project id", id)
		}
		sites[id] = mockapi.Site{Seed: int64(i + 1), Paths: paths, OtherTraffic: true}
	}
	return mockapi.New(mockapi.Options{
		Keys:       []mockapi.KeySpec{{Key: key, Org: "e2e-org", Scope: mockapi.ReadOnly, ProjectIDs: projects}},
		Projects:   sites,
		RetryAfter: true,
	}), nil
}

func handler(srv *mockapi.Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+requestsPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, srv.CountRequests(func(mockapi.Request) bool { return true }))
	})
	mux.Handle("/", srv)
	return mux
}

// maxConversationsPerHour: a day of it is 48 pages of the exporter's 1 000 rows.
const maxConversationsPerHour = 2000

// cursorFaults are what every cursor-paged collector must survive with exact counts or up 0.
var cursorFaults = map[string]mockapi.Fault{
	"page-served-twice": {PageServedTwice: true},
	"widened-range":     {WidenedRange: true},
	"repeating-cursor":  {RepeatingCursor: true},
	"cycling-cursor":    {CyclingCursor: true},
}

// hostile makes each site busy (20 feedback entries a day: pages of backlog in 90 days) and sets fault.
func hostile(srv *mockapi.Server, projects []string, conversations int, fault string) error {
	if conversations < 0 || conversations > maxConversationsPerHour {
		return fmt.Errorf("-conversations-per-hour %d is not between 0 and %d", conversations, maxConversationsPerHour)
	}
	f, ok := cursorFaults[fault]
	if fault != "" && !ok {
		return fmt.Errorf("-fault %q is none of %s", fault, strings.Join(slices.Sorted(maps.Keys(cursorFaults)), ", "))
	}
	if conversations > 0 {
		for _, id := range projects {
			site, _ := srv.Site(id)
			site.ConversationsPerHour, site.FeedbackPerDay = conversations, 20
			srv.SetSite(id, site)
		}
	}
	if ok {
		srv.SetFault(f)
	}
	return nil
}
