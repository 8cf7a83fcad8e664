package mockapi

import (
	"slices"
	"strings"
	"time"
)

// Assistant conversations are a pure function of the site and the hour, served oldest first;
// the cursor is the ULID of the last row served.

const conversationsPath = "assistant"

const (
	tagConvCount uint64 = iota + 101
	tagConv
	tagFbCount
	tagFb
	tagGapPhase
	tagSources
)

// Source is a documentation page an answer refers to.
type Source struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Conversation may lack ResponseType (the vendor defaults it to "answer"); QueryCategory and
// PageURL may be null.
type Conversation struct {
	ID               string   `json:"id"`
	Timestamp        string   `json:"timestamp"`
	Query            string   `json:"query"`
	Response         string   `json:"response"`
	ResponseType     *string  `json:"responseType,omitempty"`
	Sources          []Source `json:"sources"`
	ResolutionStatus string   `json:"resolutionStatus"`
	QueryCategory    *string  `json:"queryCategory"`
	PageURL          *string  `json:"pageUrl"`

	at time.Time
}

// SiteURL is the origin of the synthetic sites' page URLs.
const SiteURL = "https://docs.example.com"

var categories = []string{"authentication", "api-reference", "deployment", "billing",
	"integrations", "customization", "Troubleshooting & errors", "getting started"}

func (s Site) conversationsPerHour() int {
	switch {
	case s.Paths <= 0 || s.ConversationsPerHour < 0:
		return 0
	case s.ConversationsPerHour > 0:
		return s.ConversationsPerHour
	}
	return min(1+s.Paths/100, 40)
}

func (s Site) hourConversations(h int64) []Conversation {
	n := s.hourCount(h)
	if n == 0 {
		return nil
	}
	base := hash3(uint64(s.Seed), uint64(h), tagConv)
	gap := s.gapHour(h)
	out := make([]Conversation, n)
	for k := range n {
		out[k] = s.conversation(h, mix64(base+uint64(k)), gap)
	}
	slices.SortFunc(out, func(a, b Conversation) int { return strings.Compare(a.ID, b.ID) })
	if gap {
		s.spreadUnanswered(h, out)
	}
	return out
}

// hourCount is how many conversations hour h holds.
func (s Site) hourCount(h int64) int {
	if s.gapHour(h) {
		// Half to one and a half times the gap's rate: an hour as quiet
		// as the spread below allows would hide the gap.
		rate := uint64(max(s.Gap.PerHour, 0))
		return int(rate/2 + hash3(uint64(s.Seed), uint64(h), tagConvCount)%(rate+1))
	}
	rate := uint64(s.conversationsPerHour())
	if rate == 0 {
		return 0
	}
	return int(hash3(uint64(s.Seed), uint64(h), tagConvCount) % (2*rate + 1))
}

// conversation is the conversation drawn from x in hour h; in a gap
// (inGap) it is answered until spreadUnanswered says otherwise.
func (s Site) conversation(h int64, x uint64, inGap bool) Conversation {
	ms := h*3_600_000 + int64(x%3_600_000)
	at := time.UnixMilli(ms).UTC()
	pages := uint64(s.Paths)
	if inGap && s.Gap.Pages > 0 && x>>63 == 0 {
		pages = uint64(min(s.Gap.Pages, s.Paths))
	}
	page := s.PathName(int((x >> 40) % pages))
	topic := words[(x>>22)%uint64(len(words))]
	c := Conversation{
		ID:               ulid(ms, mix64(x^0x5bd1e995)),
		Timestamp:        at.Format("2006-01-02T15:04:05.000Z"),
		Query:            s.visitorText("how do I set up " + topic + "?"),
		Response:         s.visitorText(strings.Repeat("The "+topic+" guide explains each step in turn. ", 12)),
		Sources:          s.sources(x, topic),
		ResolutionStatus: "answered",
		at:               at,
	}
	if !inGap && (x>>8)%100 < DefaultUnansweredPercent {
		s.unanswer(&c)
	}
	switch (x >> 16) % 10 {
	case 0:
		c.ResponseType = ptr("clarifying_question")
	case 1: // omitted: the vendor's default, answer
	default:
		c.ResponseType = ptr("answer")
	}
	if (x>>28)%6 != 0 {
		c.QueryCategory = ptr(categories[(x>>32)%uint64(len(categories))])
	}
	if (x>>36)%5 != 0 {
		c.PageURL = ptr(SiteURL + page)
	}
	return c
}

// OtherHost serves the synthetic sites' pages too, as a custom domain and its mintlify.app one do.
const OtherHost = "https://acme.mintlify.app"

// sources are the pages an answer cites, of every shape the API may give: none, one, several, one page
// twice (anchor, query string), a non-http URL, another host; visitor text only in titles, queries, fragments.
func (s Site) sources(x uint64, topic string) []Source {
	y := mix64(x ^ tagSources) // its own draw: the rest of the row is as before
	page := func(i uint64) string { return s.PathName(int((y >> (8 + 8*i)) % uint64(s.Paths))) }
	src := func(url string) Source {
		return Source{Title: s.visitorText("About " + topic), URL: s.visitorText(url)}
	}
	one := src(SiteURL + page(0) + "#")
	switch y % 8 {
	case 0:
		return []Source{}
	case 1:
		return []Source{one, src(SiteURL + page(1) + "#"), src(SiteURL + page(2) + "?q=")}
	case 2:
		return []Source{one, src(SiteURL + page(0) + "?ref=")}
	case 3:
		return []Source{src("mailto:"), one}
	case 4:
		return []Source{src(OtherHost + page(1) + "#")}
	}
	return []Source{one}
}

// unanswer makes c a conversation the assistant could not answer.
func (s Site) unanswer(c *Conversation) {
	c.ResolutionStatus = "unanswered"
	c.Response = s.visitorText("I could not find this in the documentation.")
	c.Sources = []Source{}
}

// visitorText is t with the site's VisitorText planted in it.
func (s Site) visitorText(t string) string { return t + s.VisitorText }

func ptr[T any](v T) *T { return &v }

// Conversations returns the conversations in [from, to), oldest first.
func (s Site) Conversations(from, to time.Time) []Conversation {
	var out []Conversation
	s.eachConversation(from, to, "", func(c Conversation) bool { out = append(out, c); return true })
	return out
}

func (s Site) eachConversation(from, to time.Time, after string, yield func(Conversation) bool) {
	first, end := from.Unix()/3600-1, to.Unix()/3600+1
	if after != "" {
		first = max(first, ulidMillis(after)/3_600_000)
	}
	for h := first; h <= end; h++ {
		for _, c := range s.hourConversations(h) {
			if c.at.Before(from) || !c.at.Before(to) || c.ID <= after {
				continue
			}
			if !yield(c) {
				return
			}
		}
	}
}

func conversationsPage(site Site, from, to time.Time, limit int, cursor string) cursorPage {
	page := make([]Conversation, 0, min(limit, 1000)+1)
	site.eachConversation(from, to, cursor, func(c Conversation) bool {
		page = append(page, c)
		return len(page) <= limit
	})
	var next *string
	more := len(page) > limit
	if more {
		page = page[:limit]
		next = ptr(page[limit-1].ID)
	}
	return cursorPage{rows: page, next: next, more: more}
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func ulid(ms int64, r uint64) string {
	var b [26]byte
	putBase32(b[:10], uint64(ms))
	putBase32(b[10:14], mix64(r))
	putBase32(b[14:], r)
	return string(b[:])
}

// putBase32 writes v's low 5*len(b) bits into b, least significant digit last.
func putBase32(b []byte, v uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = crockford[v&31]
		v >>= 5
	}
}

// validULID: the first character is at most 7, so the time fits 48 bits.
func validULID(s string) bool {
	return len(s) == 26 && s[0] <= '7' && strings.Trim(s, crockford) == ""
}

func ulidMillis(s string) int64 {
	var t int64
	for i := range 10 {
		t = t<<5 | int64(strings.IndexByte(crockford, s[i]))
	}
	return t
}
