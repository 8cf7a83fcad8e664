package collector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

var writeV2 = flag.Bool("write-state-v2", false, "write testdata/state_v2.json (only ever with the version 2 code that made it)")

// everyCollector is the docs project with every analytics collector and a
// rolling window, over a small site: the configuration of the version 2
// state file in testdata.
var everyCollector = docsConfig("", "    windows: [24h]\n    collectors: [pageviews, visitors, feedback, searches, assistant]\n")

var everySite = map[string]mockapi.Site{"proj-docs": {Seed: 21, Paths: 12, OtherTraffic: true}}

// dataOf is the data series of e's exporter, in the text format.
func dataOf(t *testing.T, e *env) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e.exp.Data())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}

// TestStateFileOfVersion2IsRead: a state file written by version 2 of the
// exporter with every collector on (testdata/state_v2.json, checked in)
// is loaded with its data: after a restart over it, the exporter serves
// the same data series as one that fetched them, and makes no request.
func TestStateFileOfVersion2IsRead(t *testing.T) {
	fixture := filepath.Join("testdata", "state_v2.json")
	if *writeV2 {
		path := filepath.Join(t.TempDir(), "state.json")
		e := newEnv(t, everyCollector, envOpts{sites: everySite, statePath: path})
		e.scrape()
		e.exp.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixture, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fresh := newEnv(t, everyCollector, envOpts{sites: everySite})
	fresh.scrape()
	want := dataOf(t, fresh)

	path := filepath.Join(t.TempDir(), "state.json")
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, everyCollector, envOpts{sites: everySite, statePath: path})
	e.clock.Set(epoch.Add(time.Minute))
	e.exp.Refresh(context.Background())
	e.exp.Wait()
	if n := e.api.Server.CountRequests(nil); n != 0 {
		t.Errorf("a restart over the version 2 file made %d requests", n)
	}
	if strings.Contains(e.logs.String(), "ignoring") {
		t.Fatalf("the version 2 file was ignored:\n%s", e.logs)
	}
	if got := dataOf(t, e); got != want {
		t.Errorf("the data loaded from the version 2 file differs from the data fetched:\n%s\nwant:\n%s", got, want)
	}
	// Saved again, it is a file of this version with its own keys alone.
	e.exp.Close()
	b, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range foreignKeys(v, "") {
		t.Errorf("the state file holds key %s, not one of its own snake_case keys", k)
	}
}

// snakeCase is the form of the state file's own keys.
var snakeCase = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// foreignKeys are the keys of the JSON value v that are not snake_case,
// leaving out the keys that are data (unit ids, window keys, failure
// reasons).
func foreignKeys(v any, parent string) []string {
	var bad []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			data := parent == "units" || parent == "windows" || parent == "fail_counts"
			if !data && !snakeCase.MatchString(k) {
				bad = append(bad, k)
			}
			if data {
				k = ""
			}
			bad = append(bad, foreignKeys(x, k)...)
		}
	case []any:
		for _, x := range v {
			bad = append(bad, foreignKeys(x, parent)...)
		}
	}
	return bad
}
