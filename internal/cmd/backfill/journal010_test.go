package backfill

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// TestJournalOf010IsRead (#38 case 2): the progress file 0.1.0 left
// (testdata/v0.1.0, never regenerated: two days of views, feedback,
// searches, assistant and conversations) is resumed as it is: its header
// is of the version this code writes, and every page reads, the other
// counters' payloads through their kind's decoder.
func TestJournalOf010IsRead(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "v0.1.0", "history.om.partial"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var h journalHeader
	if err := json.Unmarshal(line, &h); err != nil {
		t.Fatal(err)
	}
	if h.Version != journalVersion {
		t.Fatalf("0.1.0 wrote version %d, this code writes %d: a format change needs a migration and this test reading the 0.1.0 file through it", h.Version, journalVersion)
	}
	path := filepath.Join(t.TempDir(), "history.om.partial")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(path, h.Args, false)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		lines++
	}
	if len(j.pages) != lines-1 || len(j.pages) == 0 {
		t.Fatalf("%d pages read, the file holds %d", len(j.pages), lines-1)
	}
	kinds := map[string]int{}
	for _, p := range j.pages {
		kinds[p.Collector]++
		if p.Collector == "" {
			if len(p.Rows) == 0 || p.Totals.Total == 0 {
				t.Errorf("%s: a views page without rows or totals", p.Day)
			}
			continue
		}
		if _, err := collector.Decode(p.Collector, p.Payload, time.Now()); err != nil {
			t.Errorf("%s %s: %v", p.Day, p.Collector, err)
		}
	}
	for _, k := range []string{"", "feedback", "searches", "assistant", "conversations"} {
		if kinds[k] == 0 {
			t.Errorf("no page of %q read, want the fixture's", k)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Error("opening the journal changed it")
	}
}
