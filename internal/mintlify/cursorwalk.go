package mintlify

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// The one walk of every cursor-paged endpoint (conversations, feedback
// entries): a kind asks for a page from the walk's cursor and hands the
// answer to Follow, which keeps every protection in one place, so a
// kind that walks a cursor gets them by walking, not by writing them
// again:
//
//   - rows are de-duplicated by their id across the whole walk (a page
//     served twice is counted once), through a 64-bit hash of each id;
//   - a row whose time lies outside the range asked for is not returned,
//     and counted in OutOfRange (an upstream that widens the range);
//   - a walk that loops ends at once with a *ResponseError (reason
//     bad_response, the unit goes up 0): a page that brings no new id and
//     points at a cursor the walk has followed already (a cursor that
//     repeats, or cycles A→B→A), or two pages in a row that bring no new
//     id. One page that brings no new id but leads on to a new cursor is
//     a page served twice, not a loop: it is skipped. So a looping
//     upstream costs three or four requests, not the page cap;
//   - the ids a walk holds are bounded (MaxCursorWalkRows), and the
//     caller's page cap is the last bound;
//   - a cursor the upstream refuses (400, a cursor it no longer knows)
//     starts the walk again from its first page, once (FollowPages).
//
// The walk's progress (cursor, the hashes of the ids read and of the
// cursors followed, its counts) is JSON-tagged: a kind keeps it in its
// payload, so a walk the budget stopped resumes where it was.

// MaxCursorWalkRows bounds the ids one walk reads: past it the walk
// fails. 200 000 hashes are 1.6 MB while the walk goes on.
const MaxCursorWalkRows = 200_000

// CursorRow is a row of a cursor-paged endpoint as its walk sees it.
type CursorRow interface {
	// walkKey is the row's id and the time its range is checked on; zero
	// when the API gave none (a feedback entry's createdAt may be null),
	// which is counted as in range.
	walkKey() (id string, at time.Time)
}

// CursorPage is one answer of a cursor-paged endpoint.
type CursorPage[R CursorRow] struct {
	Rows []R
	// NextCursor is the cursor of the next page; "" when HasMore is false.
	NextCursor string
	HasMore    bool

	endpoint string // for the errors of Follow
}

// CursorWalk is the progress of one walk of a cursor-paged endpoint.
type CursorWalk struct {
	// Cursor is the cursor of the next page, "" for the first.
	Cursor string `json:"cursor"`
	// Pages counts the pages read.
	Pages int `json:"pages,omitempty"`
	// Seen holds a 64-bit hash of every id read, Followed of every cursor
	// followed, in the order read; both are emptied when the walk is done.
	Seen     []uint64 `json:"seen,omitempty"`
	Followed []uint64 `json:"followed,omitempty"`
	// Duplicates counts rows whose id came earlier in the walk;
	// OutOfRange rows whose time lies outside the range asked for. Neither
	// is counted as a row.
	Duplicates int `json:"duplicates,omitempty"`
	OutOfRange int `json:"out_of_range,omitempty"`
	// Stale says the last page brought no new id.
	Stale bool `json:"stale,omitempty"`

	// Restarted says the walk started again after a refused cursor.
	Restarted bool `json:"restarted,omitempty"`

	seen, followed map[uint64]struct{}
}

// ErrCursorRefused marks the upstream refusing (400) a cursor of a walk
// that restarted once already: it says nothing of the range asked for.
// The caller drops the walk, so its next round starts afresh.
var ErrCursorRefused = errors.New("the upstream refused the walk's cursor")

// FollowPages walks w over r to its end: read asks for the page of a
// cursor, count takes each row to count (see Follow). A 400 to a page
// asked for with a cursor calls restart (the caller drops what it
// counted) and starts the walk again from its first page, once in the
// walk's life (Restarted is kept with it, so a budget that pauses the
// walk after each page cannot restart it for ever); a second refusal
// ends it with an error wrapping ErrCursorRefused. A 400 to a first page
// is returned as it is.
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

// Follow applies p, the page read from w.Cursor over r, to w: it returns
// the rows to count (those whose id the walk had not read, in r), and
// moves w on to the page's next cursor. done says the walk has read its
// last page. A page that shows the upstream looping, a walk past
// maxPages pages or MaxCursorWalkRows ids end the walk with an error.
func Follow[R CursorRow](w *CursorWalk, r DateRange, maxPages int, p *CursorPage[R]) (rows []R, done bool, err error) {
	w.index()
	if h := cursorHash(w.Cursor); w.Cursor != "" {
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
		h := cursorHash(id)
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
		if _, again := w.followed[cursorHash(p.NextCursor)]; again || w.Stale {
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

// index builds the walk's sets from their saved form.
func (w *CursorWalk) index() {
	if w.seen == nil {
		w.seen = make(map[uint64]struct{}, len(w.Seen))
		for _, h := range w.Seen {
			w.seen[h] = struct{}{}
		}
	}
	if w.followed == nil {
		w.followed = make(map[uint64]struct{}, len(w.Followed))
		for _, h := range w.Followed {
			w.followed[h] = struct{}{}
		}
	}
}

// cursorHash is the 64-bit hash a walk keeps of an id or a cursor.
func cursorHash(s string) uint64 { return pathHash(s) }

// Clone returns a copy of w that shares nothing with it, so a walk
// resumed from a stored payload leaves that payload as it was.
func (w *CursorWalk) Clone() CursorWalk {
	c := *w
	c.Seen, c.Followed = slices.Clone(w.Seen), slices.Clone(w.Followed)
	c.seen, c.followed = nil, nil
	return c
}

// Check tells a stored walk this program could not have saved: more ids
// or cursors than a walk holds, negative counts, a cursor it could not
// send.
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
