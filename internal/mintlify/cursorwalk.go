package mintlify

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// Follow is the one walk of every cursor-paged endpoint, so each kind gets its protections by walking: ids
// de-duplicated by a 64-bit hash; rows outside the range counted, not returned; a loop (no new id and a
// followed cursor, or no new id twice in a row) ends the walk within four requests, not the page cap; the ids
// held are bounded; a refused cursor restarts the walk once. Progress is JSON-tagged, so it resumes.

// MaxCursorWalkRows bounds the ids one walk reads: 200 000 hashes are 1.6 MB.
const MaxCursorWalkRows = 200_000

// CursorRow is a row of a cursor-paged endpoint as its walk sees it.
type CursorRow interface {
	// walkKey: a zero time (a null createdAt) counts as in range.
	walkKey() (id string, at time.Time)
}

// CursorPage is one answer of a cursor-paged endpoint.
type CursorPage[R CursorRow] struct {
	Rows       []R
	NextCursor string
	HasMore    bool

	endpoint string // for the errors of Follow
}

// CursorWalk is the progress of one walk of a cursor-paged endpoint.
type CursorWalk struct {
	Cursor string `json:"cursor"`
	Pages  int    `json:"pages,omitempty"`
	// Seen and Followed hash the ids read and cursors followed; emptied when the walk is done.
	Seen       []uint64 `json:"seen,omitempty"`
	Followed   []uint64 `json:"followed,omitempty"`
	Duplicates int      `json:"duplicates,omitempty"`
	OutOfRange int      `json:"out_of_range,omitempty"`
	Stale      bool     `json:"stale,omitempty"`

	// Restarted is kept so a walk paused after each page cannot restart for ever.
	Restarted bool `json:"restarted,omitempty"`

	seen, followed map[uint64]struct{}
}

// ErrCursorRefused: a cursor refused (400) again after one restart; the caller drops the walk.
var ErrCursorRefused = errors.New("the upstream refused the walk's cursor")

// FollowPages walks w over r to its end; a 400 to a cursor's page calls restart and starts again from the
// first page, once in the walk's life, then wraps ErrCursorRefused. A 400 to a first page is returned as is.
func FollowPages[R CursorRow](w *CursorWalk, r DateRange, maxPages int, read func(cursor string) (*CursorPage[R], error), restart func(), count func(R)) error {
	for {
		p, err := read(w.Cursor)
		switch {
		case err == nil:
		case w.Cursor == "" || !IsBadRequest(err):
			return err
		case w.Restarted:
			return fmt.Errorf("%w: %w", ErrCursorRefused, err)
		default:
			*w = CursorWalk{Restarted: true}
			restart()
			continue
		}
		rows, done, err := Follow(w, r, maxPages, p)
		if err != nil {
			return err
		}
		for _, row := range rows {
			count(row)
		}
		if done {
			return nil
		}
	}
}

// pageQuery checks a paged endpoint's arguments and returns its query.
func pageQuery(endpoint, projectID string, r DateRange, limit, maxLimit int) (url.Values, error) {
	q, err := r.query()
	switch {
	case projectID == "":
		err = errors.New("empty project id")
	case limit < 1 || limit > maxLimit:
		err = fmt.Errorf("limit %d out of range 1..%d", limit, maxLimit)
	}
	if err != nil {
		return nil, fmt.Errorf("mintlify %s: %w", endpoint, err)
	}
	q.Set("limit", strconv.Itoa(limit))
	return q, nil
}

// cursorQuery is pageQuery with a cursor, refused if the client could not have been handed it.
func cursorQuery(endpoint, projectID string, r DateRange, limit, maxLimit int, cursor string) (url.Values, error) {
	q, err := pageQuery(endpoint, projectID, r, limit, maxLimit)
	if err == nil && cursor != "" {
		if !validCursor(cursor) {
			return nil, fmt.Errorf("mintlify %s: unusable cursor", endpoint)
		}
		q.Set("cursor", cursor)
	}
	return q, err
}

// Follow applies p, read from w.Cursor, to w and returns its new rows in r; done after the last page.
func Follow[R CursorRow](w *CursorWalk, r DateRange, maxPages int, p *CursorPage[R]) (rows []R, done bool, err error) {
	w.index()
	if h := hash64(w.Cursor); w.Cursor != "" {
		if _, ok := w.followed[h]; !ok {
			w.followed[h] = struct{}{}
			w.Followed = append(w.Followed, h)
		}
	}
	w.Pages++
	fresh := 0
	rows = p.Rows[:0] // filtered in place
	for _, row := range p.Rows {
		id, at := row.walkKey()
		h := hash64(id)
		if _, dup := w.seen[h]; dup {
			w.Duplicates++
			continue
		}
		if len(w.seen) == MaxCursorWalkRows {
			return nil, false, fmt.Errorf("mintlify %s: more than %d rows in one walk", p.endpoint, MaxCursorWalkRows)
		}
		w.seen[h] = struct{}{}
		w.Seen = append(w.Seen, h)
		fresh++
		if !at.IsZero() && (at.Before(r.From) || !at.Before(r.To)) {
			w.OutOfRange++
			continue
		}
		rows = append(rows, row)
	}
	if !p.HasMore {
		w.Cursor = ""
		w.Seen, w.Followed, w.seen, w.followed = nil, nil, nil, nil
		return rows, true, nil
	}
	if fresh == 0 {
		if _, again := w.followed[hash64(p.NextCursor)]; again || w.Stale {
			return nil, false, &ResponseError{Endpoint: p.endpoint, StatusCode: 200,
				Reason: fmt.Sprintf("the cursor walk loops: page %d brought no row not read before and leads to a cursor already followed or to another such page", w.Pages)}
		}
	}
	if w.Pages >= maxPages {
		return nil, false, fmt.Errorf("mintlify %s: more than %d pages in one walk", p.endpoint, maxPages)
	}
	w.Stale = fresh == 0
	w.Cursor = p.NextCursor
	return rows, false, nil
}

func (w *CursorWalk) index() {
	if w.seen == nil {
		w.seen = hashSet(w.Seen)
	}
	if w.followed == nil {
		w.followed = hashSet(w.Followed)
	}
}

// Clone shares nothing with w, so a resumed walk leaves the stored payload as it was.
func (w *CursorWalk) Clone() CursorWalk {
	c := *w
	c.Seen, c.Followed = slices.Clone(w.Seen), slices.Clone(w.Followed)
	c.seen, c.followed = nil, nil
	return c
}

// Check refuses a stored walk this program could not have saved.
func (w *CursorWalk) Check() error {
	switch {
	case len(w.Seen) > MaxCursorWalkRows || len(w.Followed) > MaxCursorWalkRows:
		return fmt.Errorf("%d ids and %d cursors, at most %d each", len(w.Seen), len(w.Followed), MaxCursorWalkRows)
	case w.Pages < 0 || w.Duplicates < 0 || w.OutOfRange < 0:
		return errors.New("a negative count")
	case w.Cursor != "" && !validCursor(w.Cursor):
		return errors.New("a cursor the client could not send")
	}
	return nil
}
