package backfill

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// asVersion1 rewrites the journal at path as an earlier release wrote it:
// version 1, the other counters' answers in their own keys.
func asVersion1(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	for i, line := range lines {
		if line == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// As the earlier release wrote it: its header type, fields in order.
			hb, _ := json.Marshal(journalHeader{Version: 1, Args: v["args"].(string)})
			out.Write(append(hb, '\n'))
			continue
		}
		if raw, ok := v["payload"]; ok {
			delete(v, "payload")
			pb, _ := json.Marshal(raw)
			switch v["kind"] {
			case "feedback":
				var p source.FeedbackPayload
				_ = json.Unmarshal(pb, &p)
				var rows []map[string]any
				for _, r := range p.Pages {
					rows = append(rows, map[string]any{"path": r.Path, "up": r.ThumbsUp, "down": r.ThumbsDown, "code": r.Code})
				}
				v["feedback"] = rows
			case "searches":
				var p source.SearchesPayload
				_ = json.Unmarshal(pb, &p)
				v["searches"] = p.Total
			case "assistant":
				var p source.AssistantPayload
				_ = json.Unmarshal(pb, &p)
				v["assistant"] = map[string]any{"Web": p.Web, "API": p.API, "Other": p.Other, "Total": p.Web + p.API + p.Other}
			}
		}
		nb, _ := json.Marshal(v)
		out.Write(append(nb, '\n'))
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBackfillResumesJournalOfVersion1: a backfill of the other counters
// interrupted under an earlier release (its journal of version 1) is
// finished by this one, to the bytes of an uninterrupted run, without
// fetching again what the journal holds.
func TestBackfillResumesJournalOfVersion1(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 14, Paths: 40}, nil)
	args := func(out string) []string {
		return []string{"--from", "2026-08-30", "--to", "2026-09-02", "--collector.feedback", "--collector.searches", "--collector.assistant", "--output", out}
	}
	whole := filepath.Join(h.dir, "whole.om")
	if code, stderr := h.run(context.Background(), nil, args(whole)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, _ := os.ReadFile(whole)
	h.api.Server.ResetRequests()
	out := filepath.Join(h.dir, "resumed.om")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if code, stderr := h.run(ctx, func(n int) {
		if n == 8 {
			cancel()
		}
	}, args(out)...); code != cli.ExitError {
		t.Fatalf("interrupted: exit %d: %s", code, stderr)
	}
	asVersion1(t, out+".partial")
	if code, stderr := h.run(context.Background(), nil, args(out)...); code != 0 || !strings.Contains(stderr, "8 left to make") {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	if resumed, _ := os.ReadFile(out); !bytes.Equal(resumed, want) {
		t.Errorf("resumed output differs from an uninterrupted run's:\n%s\nwant:\n%s", resumed, want)
	}
	if n := len(h.views()); n != 16 {
		t.Errorf("interrupted + resumed runs made %d requests, want 16", n)
	}
}

// TestJournalIsTagged: every field of a journal line has a json tag, the
// kinds' payloads included.
func TestJournalIsTagged(t *testing.T) {
	testkit.CheckJSONTags(t, journalHeader{})
	testkit.CheckJSONTags(t, journalPage{})
	for _, name := range extraKinds {
		code, _ := source.Lookup(name)
		testkit.CheckJSONTags(t, code.Empty())
	}
}
