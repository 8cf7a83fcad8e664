package collector

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Searches: GET searches, one request a window; terms come by hits, descending, so page one is the top.
const Searches = "searches"

var searchesRow = spec.Collector{
	Name: Searches, Weight: 1, Summary: "top search terms and their click-through ratio",
	Endpoint: "searches", Windows: spec.MonthAndWindows, TopN: 10, TopNKey: "search_top_n",
	Families: []Family{
		{Name: "mintlify_searches_total", Counter: true, Labels: []string{"project"},
			Help: "Search events on the site since the start of the current UTC calendar month (all terms)." + monthCounter},
		{Name: "mintlify_searches", Labels: []string{"project", "window"},
			Help: "Search events on the site in the rolling window (all terms, not only the exported ones)."},
		{Name: "mintlify_search_hits", Labels: []string{"project", "query", "window"},
			Help: "Times a search term was searched in the rolling window; only the top search_top_n terms by hits are exported, sanitised and cut to 64 characters."},
		{Name: "mintlify_search_click_through_ratio", Labels: []string{"project", "query", "window"},
			Help: "Share of a search term's searches that led to a click on a result (0 to 1), for the exported top terms."},
	},
	Fetched: searches{},
}

// SearchesPayload is a window's search events and its top terms, as stored.
type SearchesPayload struct {
	Total float64      `json:"total"` // search events in the range, all terms
	Terms []SearchTerm `json:"terms"`
}

// SearchTerm is one search term, as the API wrote it.
type SearchTerm struct {
	Query string  `json:"query"`
	Hits  float64 `json:"hits"`
	CTR   float64 `json:"click_through_ratio"`
}

type searches struct{}

func (searches) Cost(Payload) int { return 1 }
func (searches) Empty() Payload   { return &SearchesPayload{} }

func (searches) Fetch(ctx context.Context, q Query) (Payload, error) {
	page, err := q.Client.Searches(ctx, q.Project, q.Range, q.Settings.TopN, "")
	if err != nil {
		return nil, err
	}
	p := &SearchesPayload{Total: page.TotalSearches, Terms: make([]SearchTerm, 0, len(page.Rows))}
	for _, r := range page.Rows {
		p.Terms = append(p.Terms, SearchTerm{Query: r.Query, Hits: r.Hits, CTR: r.CTR})
	}
	return p, nil
}

// Samples: only the total gets a counter; a month's top terms are no sum of its days'.
func (searches) Samples(pl Payload, s Settings) []Sample {
	p := pl.(*SearchesPayload)
	out := []Sample{{Family: "mintlify_searches", Value: p.Total}}
	seen := map[string]bool{}
	for _, r := range p.Terms {
		q := SanitizeQuery(r.Query)
		if q == "" || seen[q] || len(seen) >= s.TopN {
			continue // two terms that sanitise alike keep the first (more hits)
		}
		seen[q] = true
		query := []Label{{Name: "query", Value: q}}
		out = append(out,
			Sample{Family: "mintlify_search_hits", Labels: query, Value: r.Hits},
			Sample{Family: "mintlify_search_click_through_ratio", Labels: query, Value: min(r.CTR, 1)})
	}
	return out
}

// maxQueryRunes: search terms are typed by readers and may hold personal data, and each is a new series,
// so only the top few are exported, and only their start.
const maxQueryRunes = 64

// SanitizeQuery makes a search term a tidy label value: valid UTF-8, lower case, spaces folded, short.
func SanitizeQuery(q string) string {
	q = strings.ToValidUTF8(q, "")
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.ToLower(q) {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == utf8.RuneError:
			continue
		}
		if n >= maxQueryRunes {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n >= maxQueryRunes {
				break
			}
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// Check: terms are sanitised when they become samples (SanitizeQuery), as the API's are.
func (searches) Check(pl Payload, _ time.Time) error {
	p := pl.(*SearchesPayload)
	if len(p.Terms) > mintlify.MaxSearchesLimit {
		return fmt.Errorf("%d terms, an answer has at most %d", len(p.Terms), mintlify.MaxSearchesLimit)
	}
	if err := checkCount("total", p.Total); err != nil {
		return err
	}
	for _, r := range p.Terms {
		if err := checkCounts("term: ", map[string]float64{"hits": r.Hits, "click-through ratio": r.CTR}); err != nil {
			return err
		}
	}
	return nil
}
