package mockapi

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Feedback entries are a pure function of the site and the UTC day, with a fixed review status
// (a quarter stay pending for ever), served newest first.

const feedbackEntriesPath = "feedback"

// FeedbackEntry is one entry in any of the three shapes; marshal it with its JSON method.
type FeedbackEntry struct {
	ID        string
	Path      string
	Comment   *string
	CreatedAt *string // null for some entries
	Source    string
	Status    string
	Helpful   bool
	Contact   *string
	Code      string
	Filename  *string
	Lang      *string

	at time.Time // when it was created, even when CreatedAt is null
}

// Created is when the entry was created, whether or not it is served.
func (e FeedbackEntry) Created() time.Time { return e.at }

type feedbackBase struct {
	ID        string  `json:"id"`
	Path      string  `json:"path"`
	Comment   *string `json:"comment"`
	CreatedAt *string `json:"createdAt"`
	Source    string  `json:"source"`
	Status    string  `json:"status"`
}

func (e FeedbackEntry) wire() any {
	base := feedbackBase{ID: e.ID, Path: e.Path, Comment: e.Comment, CreatedAt: e.CreatedAt, Source: e.Source, Status: e.Status}
	switch e.Source {
	case "contextual":
		return struct {
			feedbackBase
			Helpful bool    `json:"helpful"`
			Contact *string `json:"contact"`
		}{base, e.Helpful, e.Contact}
	case "code_snippet":
		return struct {
			feedbackBase
			Code     string  `json:"code"`
			Filename *string `json:"filename"`
			Lang     *string `json:"lang"`
		}{base, e.Code, e.Filename, e.Lang}
	}
	return base
}

var (
	feedbackSources  = []string{"code_snippet", "contextual", "agent", "thumbs_only"}
	feedbackStatuses = []string{"pending", "in_progress", "resolved", "dismissed"}
)

func (s Site) feedbackPerDay() int {
	switch {
	case s.Paths <= 0 || s.FeedbackPerDay < 0:
		return 0
	case s.FeedbackPerDay > 0:
		return s.FeedbackPerDay
	}
	return min(1+s.Paths/50, 50)
}

func (s Site) dayFeedback(d int64) []FeedbackEntry {
	rate := uint64(s.feedbackPerDay())
	if rate == 0 {
		return nil
	}
	n := int(hash3(uint64(s.Seed), uint64(d), tagFbCount) % (2*rate + 1))
	base := hash3(uint64(s.Seed), uint64(d), tagFb)
	out := make([]FeedbackEntry, n)
	for k := range n {
		out[k] = s.feedbackEntry(d, mix64(base+uint64(k)))
	}
	slices.SortFunc(out, func(a, b FeedbackEntry) int { return strings.Compare(b.ID, a.ID) })
	return out
}

func (s Site) feedbackEntry(d int64, x uint64) FeedbackEntry {
	ms := d*86_400_000 + int64(x%86_400_000)
	at := time.UnixMilli(ms).UTC()
	e := FeedbackEntry{
		ID:     ulid(ms, mix64(x^0x27d4eb2f)),
		Path:   s.PathName(int((x >> 40) % uint64(s.Paths))),
		Source: feedbackSources[(x>>8)%4],
		at:     at,
	}
	switch st := (x >> 12) % 20; {
	case st < 5:
		e.Status = "pending"
	case st < 7:
		e.Status = "in_progress"
	case st < 17:
		e.Status = "resolved"
	default:
		e.Status = "dismissed"
	}
	if (x>>20)%25 != 0 {
		e.CreatedAt = ptr(at.Format("2006-01-02T15:04:05.000Z"))
	}
	if (x>>24)%5 == 0 {
		e.Path = SiteURL + e.Path // the API gives a path or a URL
	}
	if e.Source != "thumbs_only" && (x>>28)%4 != 0 {
		e.Comment = ptr(s.visitorText("This page does not say what happens on a timeout."))
	}
	switch e.Source {
	case "contextual":
		e.Helpful = (x>>32)%2 == 0
		if (x>>33)%3 == 0 {
			e.Contact = ptr("reader" + strconv.Itoa(int(x>>48)) + s.VisitorText + "@example.com")
		}
	case "code_snippet":
		e.Code = s.visitorText("curl -H 'Authorization: Bearer $TOKEN' " + SiteURL + "/api")
		if (x>>34)%2 == 0 {
			e.Filename, e.Lang = ptr("example.sh"), ptr("bash")
		}
	}
	return e
}

// FeedbackEntries returns the entries created in [from, to), newest first, unfiltered.
func (s Site) FeedbackEntries(from, to time.Time) []FeedbackEntry {
	var out []FeedbackEntry
	s.eachFeedback(from, to, "", func(e FeedbackEntry) bool { out = append(out, e); return true })
	return out
}

func (s Site) eachFeedback(from, to time.Time, before string, yield func(FeedbackEntry) bool) {
	first, last := from.Unix()/86400-1, to.Unix()/86400+1
	if before != "" {
		last = min(last, ulidMillis(before)/86_400_000)
	}
	for d := last; d >= first; d-- {
		for _, e := range s.dayFeedback(d) {
			if e.at.Before(from) || !e.at.Before(to) || (before != "" && e.ID >= before) {
				continue
			}
			if !yield(e) {
				return
			}
		}
	}
}

type feedbackQuery struct {
	limit    int
	source   string   // "" for all
	statuses []string // empty for all
	before   string   // the cursor's id
}

func feedbackParams(v *validator) feedbackQuery {
	var fq feedbackQuery
	if src, ok := v.q["source"]; ok {
		if !slices.Contains(feedbackSources, src[0]) {
			v.failf("source: invalid value %q", src[0])
		}
		fq.source = src[0]
	}
	if st, ok := v.q["status"]; ok {
		for s := range strings.SplitSeq(st[0], ",") {
			if !slices.Contains(feedbackStatuses, s) {
				v.failf("status: invalid value %q, expected a comma-separated list of %s", s, strings.Join(feedbackStatuses, ", "))
				continue
			}
			fq.statuses = append(fq.statuses, s)
		}
	}
	if cs, ok := v.q["cursor"]; ok {
		b, err := base64.RawURLEncoding.DecodeString(cs[0])
		id, good := strings.CutPrefix(string(b), "f:")
		if err != nil || !good || !validULID(id) {
			v.failf("cursor: invalid pagination cursor")
		}
		fq.before = id
	}
	return fq
}

func feedbackPage(site Site, from, to time.Time, fq feedbackQuery, cursor string) cursorPage {
	if cursor == "" {
		fq.before = ""
	} else if b, err := base64.RawURLEncoding.DecodeString(cursor); err == nil {
		fq.before = strings.TrimPrefix(string(b), "f:")
	}
	page := make([]any, 0, fq.limit+1)
	var last string
	site.eachFeedback(from, to, fq.before, func(e FeedbackEntry) bool {
		if (fq.source != "" && e.Source != fq.source) || (len(fq.statuses) > 0 && !slices.Contains(fq.statuses, e.Status)) {
			return true
		}
		if len(page) == fq.limit {
			page = append(page, nil) // one more exists
			return false
		}
		page, last = append(page, e.wire()), e.ID
		return true
	})
	var next *string
	more := len(page) > fq.limit
	if more {
		page = page[:fq.limit]
		next = ptr(base64.RawURLEncoding.EncodeToString([]byte("f:" + last)))
	}
	return cursorPage{rows: page, next: next, more: more}
}
