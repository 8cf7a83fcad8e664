package serve_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve/servetest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
)

// TestDemoShowsDocumentationGaps: --demo exports the documentation-gaps
// families, with unanswered conversations (by category and by page) and
// open feedback older than the MintlifyFeedbackWaiting threshold (14
// days). The exporter's clock is fixed mid-month, so the month to date
// has days in it whatever day the test runs.
func TestDemoShowsDocumentationGaps(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	ts := servetest.Start(t, []string{"--demo"}, serve.Options{Clock: manualclock.New(now)})
	out := servetest.ScrapeSettled(t, ts, nil)
	value := func(series string) (float64, bool) {
		for _, line := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(line, series+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				return f, err == nil
			}
		}
		return 0, false
	}
	for _, prefix := range []string{
		`mintlify_assistant_conversations_total{project="docs",resolution="unanswered",`,
		`mintlify_assistant_conversations_total{project="docs",resolution="answered",`,
		`mintlify_assistant_unanswered_total{category=`,
		`mintlify_assistant_unanswered_pages_total{path=`,
		`mintlify_feedback_open{project="docs",source=`,
	} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, prefix) && !strings.HasSuffix(line, " 0") {
				found = true
			}
		}
		if !found {
			t.Errorf("no series %s… above 0", prefix)
		}
	}
	oldest, ok := value(`mintlify_feedback_oldest_open_timestamp_seconds{project="docs"}`)
	if !ok || now.Sub(time.Unix(int64(oldest), 0)) < 14*24*time.Hour {
		t.Errorf("oldest open feedback at %v (%v), want older than 14 days", time.Unix(int64(oldest), 0).UTC(), ok)
	}
}
