package collector_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

const key = "mint_readonlykey456"

// cursorSite pages every cursor-paged endpoint: 120 conversations an
// hour are three pages a day, some 200 open feedback entries in the
// look-back three pages.
var cursorSite = mockapi.Site{Seed: 7, Paths: 300, ConversationsPerHour: 120}

// fetched is one Fetch of a kind from a fresh simulator, with fault f.
type fetched struct {
	payload  spec.Payload
	err      error
	requests int
}

// fetchUnder runs kind name's Fetch for the month to date at now against
// a simulated API of cursorSite answering with fault f.
func fetchUnder(t *testing.T, name string, now time.Time, f mockapi.Fault) fetched {
	return fetchFrom(t, cursorSite, name, now, f)
}

// fetchFrom is fetchUnder from a site of its own.
func fetchFrom(t *testing.T, site mockapi.Site, name string, now time.Time, f mockapi.Fault) fetched {
	return fetchAfter(t, site, name, now, f, nil)
}

// fetchAfter is fetchFrom with the window's last payload, old.
func fetchAfter(t *testing.T, site mockapi.Site, name string, now time.Time, f mockapi.Fault, old spec.Payload) fetched {
	t.Helper()
	return fetchGated(t, site, name, now, f, old, -1)
}

// fetchGated is fetchAfter through a gate that lets allow requests
// through (all when negative), as the budget does.
func fetchGated(t *testing.T, site mockapi.Site, name string, now time.Time, f mockapi.Fault, old spec.Payload, allow int) fetched {
	t.Helper()
	api, err := mockapi.Start(mockapi.Options{
		Clock:    manualclock.New(now),
		Keys:     []mockapi.KeySpec{{Key: key, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"p": site},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	api.Server.SetFault(f)
	c, err := mintlify.New(mintlify.Options{BaseURL: api.URL(), Key: secret.New(key), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if allow >= 0 {
		c = c.Gated(func(context.Context) error {
			if allow == 0 {
				return errors.New("spent")
			}
			allow--
			return nil
		})
	}
	row, _ := collector.Lookup(name)
	code, ok := row.Fetched, row.Fetched != nil
	if !ok {
		t.Fatalf("%s: no code", name)
	}
	p, err := code.Fetch(context.Background(), spec.Query{Client: c, Project: "p", Range: mintlify.MonthToDate(now), Now: now, Old: old,
		Settings: spec.Settings{TopN: 20, LookBack: 90 * 24 * time.Hour}})
	return fetched{payload: p, err: err, requests: api.Server.CountRequests(nil)}
}

// TestCursorKindsUnderFaults: every cursor-paged kind of the table,
// through its own Fetch and a real client, counts under each of the
// simulator's cursor faults exactly what it counts from the well-formed
// answer, within a bound of requests (two more for a page served twice,
// three times as many for a range widened by a day each side, which
// serves three days' rows); and a cursor that repeats or
// cycles ends the fetch at once as a bad response, within four
// requests. A kind marked spec.CursorPages is covered here without a test
// of its own.
func TestCursorKindsUnderFaults(t *testing.T) {
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	settings := spec.Settings{TopN: 20}
	var covered int
	for _, k := range collector.All {
		if k.Paging != spec.CursorPages {
			continue
		}
		covered++
		code := k.Fetched
		well := fetchUnder(t, k.Name, now, mockapi.Fault{})
		if well.err != nil || well.requests < 3 {
			t.Fatalf("%s: well-formed fetch: %v after %d requests (want at least 3, to page)", k.Name, well.err, well.requests)
		}
		want, wellDropped := counted(code.Samples(well.payload, settings))
		if wellDropped["duplicate"] != 0 || wellDropped["out_of_range"] != 0 {
			t.Errorf("%s: the well-formed answer dropped rows: %v", k.Name, wellDropped)
		}
		if k.Name == collector.Conversations {
			wantCounted(t, want, "mintlify_assistant_answers_without_sources_total", "mintlify_assistant_cited_pages_total",
				"mintlify_assistant_page_conversations_total")
			if wellDropped["source_url"] == 0 {
				t.Error("conversations: no source URL dropped: the simulator serves no non-http URL")
			}
		}
		for _, tc := range []struct {
			name        string
			fault       mockapi.Fault
			loops       bool
			maxRequests int
			dropped     string // the reason of the rows it drops
		}{
			{"page served twice", mockapi.Fault{PageServedTwice: true}, false, well.requests + 2, "duplicate"},
			{"widened range", mockapi.Fault{WidenedRange: true}, false, 3*well.requests + 2, "out_of_range"},
			{"repeating cursor", mockapi.Fault{RepeatingCursor: true}, true, 4, ""},
			{"cycling cursor", mockapi.Fault{CyclingCursor: true}, true, 4, ""},
		} {
			t.Run(k.Name+"/"+tc.name, func(t *testing.T) {
				got := fetchUnder(t, k.Name, now, tc.fault)
				if tc.loops {
					if reason := mintlify.Classify(got.err).Reason(); reason != mintlify.ReasonBadResponse || got.payload != nil {
						t.Errorf("fetch ended with %v (reason %q) and payload %v, want a bad response and none", got.err, reason, got.payload)
					}
					if got.requests > tc.maxRequests {
						t.Errorf("%d requests on a looping cursor, want at most %d", got.requests, tc.maxRequests)
					}
					return
				}
				if got.err != nil {
					t.Fatal(got.err)
				}
				s, dropped := counted(code.Samples(got.payload, settings))
				if !reflect.DeepEqual(s, want) {
					t.Errorf("samples\n%v\nwant those of the well-formed answer\n%v", s, want)
				}
				for reason, n := range wellDropped { // URLs not counted: as many as in the well-formed answer
					if dropped[reason] == n {
						delete(dropped, reason)
					}
				}
				if len(dropped) != 1 || dropped[tc.dropped] == 0 {
					t.Errorf("dropped rows reported %v, want some of reason %s only", dropped, tc.dropped)
				}
				if got.requests > tc.maxRequests {
					t.Errorf("%d requests, want at most %d", got.requests, tc.maxRequests)
				}
			})
		}
	}
	if covered == 0 {
		t.Error("no kind of the table is cursor-paged")
	}
}

// wantCounted fails unless each family has a sample not 0 among data.
func wantCounted(t *testing.T, data []spec.Sample, families ...string) {
	t.Helper()
	for _, f := range families {
		if !slices.ContainsFunc(data, func(s spec.Sample) bool { return s.Family == f && s.Value != 0 }) {
			t.Errorf("no %s counted: the test would prove nothing", f)
		}
	}
}

// counted splits a kind's samples into those of its data and the rows
// its walk dropped (the samples with a reason label), summed by reason
// where not 0.
func counted(samples []spec.Sample) (data []spec.Sample, dropped map[string]float64) {
	dropped = map[string]float64{}
	for _, s := range samples {
		i := slices.IndexFunc(s.Labels, func(l spec.Label) bool { return l.Name == "reason" })
		switch {
		case i < 0:
			data = append(data, s)
		case s.Value != 0:
			dropped[s.Labels[i].Value] += s.Value
		}
	}
	return data, dropped
}

// TestRefusedCursorRestartsTheWalk (#46 case 11): every cursor-paged
// kind, its walk stopped by the budget after two pages and resumed from
// the stored cursor, which the upstream refuses (400, a cursor that
// expired): the walk starts again from its first page and counts exactly
// what the well-formed answer counts, rather than fail on every retry
// with the same cursor.
func TestRefusedCursorRestartsTheWalk(t *testing.T) {
	now := time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC) // one day of three pages
	settings := spec.Settings{TopN: 20}
	for _, k := range collector.All {
		if k.Paging != spec.CursorPages {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			code := k.Fetched
			well := fetchUnder(t, k.Name, now, mockapi.Fault{})
			want, wellDropped := counted(code.Samples(well.payload, settings))
			paused := fetchGated(t, cursorSite, k.Name, now, mockapi.Fault{}, nil, 2)
			if !errors.Is(paused.err, mintlify.ErrWalkStopped) || paused.payload == nil {
				t.Fatalf("the gated fetch ended with %v, payload %v; want a walk stopped by the budget", paused.err, paused.payload)
			}
			got := fetchAfter(t, cursorSite, k.Name, now, mockapi.Fault{RefusedCursors: 1}, paused.payload)
			if got.err != nil {
				t.Fatalf("the resumed walk whose cursor was refused: %v", got.err)
			}
			s, dropped := counted(code.Samples(got.payload, settings))
			if !reflect.DeepEqual(s, want) {
				t.Errorf("samples\n%v\nwant those of the well-formed answer\n%v", s, want)
			}
			if !reflect.DeepEqual(dropped, wellDropped) {
				t.Errorf("dropped %v, want those of the well-formed answer, %v", dropped, wellDropped)
			}
		})
	}
}
