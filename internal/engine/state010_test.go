package engine

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// release010 holds the files 0.1.0 wrote (README.md there says how):
// never regenerated.
var release010 = filepath.Join("..", "..", "testdata", "v0.1.0")

// TestStateFileOf010IsServed (#38 case 2): the state file 0.1.0 wrote is
// read as it is: after a restart over it, under the configuration it was
// written with, every unit serves the data it held, fresh, and the
// refresh makes no request.
func TestStateFileOf010IsServed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(release010, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		Version int       `json:"version"`
		Saved   time.Time `json:"saved"`
		Units   map[string]struct {
			Health struct {
				LastSuccess time.Time `json:"last_success"`
			} `json:"health"`
		} `json:"units"`
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if saved.Version != stateVersion {
		t.Fatalf("0.1.0 wrote version %d, this code writes %d: a format change needs a migration and this test reading the 0.1.0 file through it", saved.Version, stateVersion)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(release010, "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	yamlCfg := regexp.MustCompile(`(?m)^  api_url: .*$`).ReplaceAllString(strings.ReplaceAll(string(cfg), "%", "%%"), "  api_url: %s")
	var logs strings.Builder
	e := newTestEngine(t, yamlCfg, mockapi.Options{Projects: map[string]mockapi.Site{"demo-blog": {Seed: 1, Paths: 10}}},
		Options{StoragePath: path, Clock: manualclock.New(saved.Saved.Add(time.Minute)), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.refresh()
	if n := e.api.Server.CountRequests(nil); n != 0 {
		t.Errorf("a restart over the 0.1.0 state file made %d requests", n)
	}
	if strings.Contains(logs.String(), "ignoring") || strings.Contains(logs.String(), "dropped") {
		t.Errorf("the 0.1.0 state file was not read whole:\n%s", logs.String())
	}
	units := e.View().Units
	if len(units) != len(saved.Units) {
		t.Errorf("%d units configured, the file holds %d", len(units), len(saved.Units))
	}
	for _, u := range units {
		id := u.u.id.String() // the file keys units by project id
		s, ok := saved.Units[id]
		if !ok {
			t.Errorf("unit %s: not in the 0.1.0 file", id)
			continue
		}
		if !u.Fresh() || !u.Health().LastSuccess.Equal(s.Health.LastSuccess) {
			t.Errorf("unit %s: fresh %v, last success %v; want the file's data (%v) served", id, u.Fresh(), u.Health().LastSuccess, s.Health.LastSuccess)
		}
	}
}

// TestStateFileOfDevelopmentBuildIsRefused (#38 case 2): a state file of
// version 1 or 2, which only development builds before 0.1.0 wrote, is
// refused, not migrated: the error says what wrote it and what to do.
// (It replaces TestStateFileOfVersion1IsRead and
// TestStateFileOfVersion2IsRead, whose migrations went.)
func TestStateFileOfDevelopmentBuildIsRefused(t *testing.T) {
	for _, version := range []int{1, 2} {
		path := filepath.Join(t.TempDir(), "state.json")
		b := fmt.Sprintf(`{"kind":%q,"version":%d,"saved":"2026-09-01T00:00:00Z","units":{}}`, stateKind, version)
		if err := os.WriteFile(path, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		files, err := statefiles.Open(path, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = readState(files, time.Now(), collector.All)
		files.Close()
		if err == nil {
			t.Errorf("version %d: read", version)
			continue
		}
		for _, want := range []string{fmt.Sprintf("version %d", version), "development build before 0.1.0", "move the file aside or delete it", "fetches its data again"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("version %d: %q does not say %q", version, err, want)
			}
		}
	}
}
