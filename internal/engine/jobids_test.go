package engine

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// jobIDs keeps the config's ids and the newest lines of the file, each id
// once, at most MaxTrackedJobs, and counts the rest.
func TestJobIDsCapAndOrder(t *testing.T) {
	var lines []string
	for i := range MaxTrackedJobs + 100 {
		lines = append(lines, fmt.Sprintf("p/job_%06d", i))
	}
	lines = append(lines, "p/cfg_a", "other/job_x", "bare")
	read := func(string) ([]string, error) { return lines, nil }
	ids, ignored, err := jobIDs("p", []string{"cfg_a", "cfg_b"}, "f", false, read)()
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != MaxTrackedJobs || ignored != 102 {
		t.Fatalf("%d ids, %d ignored; want %d and 102", len(ids), ignored, MaxTrackedJobs)
	}
	if ids[0] != "cfg_a" || ids[1] != "cfg_b" {
		t.Fatalf("config ids not first: %q", ids[:2])
	}
	if !slices.Contains(ids, fmt.Sprintf("job_%06d", MaxTrackedJobs+99)) || slices.Contains(ids, "job_000000") {
		t.Fatal("the oldest lines were kept instead of the newest")
	}
	if slices.Contains(ids, "job_x") || slices.Contains(ids, "bare") {
		t.Fatal("a foreign or bare id was taken with several projects")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("%q twice", id)
		}
		seen[id] = true
	}
}

// An unreadable file still leaves the config's ids to poll.
func TestJobIDsFileErrorKeepsConfigIDs(t *testing.T) {
	boom := errors.New("boom")
	ids, _, err := jobIDs("p", []string{"cfg_a"}, "f", true, func(string) ([]string, error) { return nil, boom })()
	if !errors.Is(err, boom) || !slices.Equal(ids, []string{"cfg_a"}) {
		t.Fatalf("ids %q err %v", ids, err)
	}
}

func TestCapLoggedOnce(t *testing.T) {
	var logs bytes.Buffer
	a := &agentJobs{log: slog.New(slog.NewTextHandler(&logs, nil)), jobs: map[string]*trackedJob{}}
	for _, n := range []int{5, 7, 7, 0, 3} {
		a.noteIgnored(n)
	}
	if got := strings.Count(logs.String(), "too many tracked agent job ids"); got != 2 {
		t.Fatalf("%d log lines, want one per time the cap is hit:\n%s", got, logs.String())
	}
	if a.ignored != 3 {
		t.Fatalf("ignored %d", a.ignored)
	}
}

// The per-refresh work on a list at the cap stays small: linear, and the
// lock is held for well under a scrape's timeout. The bound is generous
// (the O(n²) version took minutes at this size).
func TestForgetLinear(t *testing.T) {
	a := &agentJobs{jobs: map[string]*trackedJob{}, recheck404: time.Minute}
	ids := make([]string, MaxTrackedJobs)
	for i := range ids {
		ids[i] = fmt.Sprintf("job_%06d", i)
	}
	start := time.Now()
	for range 5 {
		a.due(ids, time.Now())
		a.forget(ids[:len(ids)/2])
		a.forget(ids)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("five rounds over %d ids took %v", len(ids), d)
	}
}

// The file is parsed again only when it changed.
func TestJobIDsRereadOnlyOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.txt")
	if err := os.WriteFile(path, []byte("p/a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := 0
	src := jobIDs("p", nil, path, false, func(p string) ([]string, error) {
		reads++
		b, err := os.ReadFile(p)
		return strings.Fields(string(b)), err
	})
	for range 3 {
		if ids, _, err := src(); err != nil || !slices.Equal(ids, []string{"a"}) {
			t.Fatalf("ids %q err %v", ids, err)
		}
	}
	if reads != 1 {
		t.Fatalf("%d reads of an unchanged file", reads)
	}
	if err := os.WriteFile(path, []byte("p/a\np/b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := src(); !slices.Equal(ids, []string{"b", "a"}) || reads != 2 {
		t.Fatalf("after a change: ids %q, %d reads", ids, reads)
	}
}
