package mockapi

import "time"

// A Live site is read as the clock moves, as a real one is: an hour
// counts only the part of it that lies in the range asked for. The API
// caps a range at now, so the hour under way grows second by second, and
// the month's counts with it; a range of whole hours (every day range, so
// the backfill's) counts exactly what a site that is not Live counts.
// Without Live, an hour bucket counts whole from its first instant, as
// the existing tests and golden files expect: the counts then change once
// an hour.

// span is the part of the hour buckets [first, end) a range covers. For a
// site that is not Live every bucket counts whole (from and to are zero,
// so that every range of the same buckets shares one cache entry); for a
// Live one, bucket h counts the seconds of [from, to) (Unix seconds) in
// it.
type span struct {
	first, end int64
	live       bool
	from, to   int64
	last       int64 // end-1, for a Live site
}

// spanOf is the span of the range [from, to) on s: the buckets whose
// start lies in it (HourRange), or for a Live site every bucket the range
// overlaps, to the second.
func (s Site) spanOf(from, to time.Time) span {
	if !s.Live {
		first, end := HourRange(from, to)
		return span{first: first, end: end}
	}
	f, t := from.Unix(), max(to.Unix(), from.Unix())
	first, end := floorDiv(f, 3600), -floorDiv(-t, 3600)
	return span{first: first, end: end, live: true, from: f, to: t, last: end - 1}
}

// secs is how many seconds of hour h the range covers (3600: whole).
func (sp span) secs(h int64) int64 {
	if !sp.live {
		return 3600
	}
	return min(sp.to, (h+1)*3600) - max(sp.from, h*3600)
}

// part is how many of the v events of hour h the range covers. The
// events of an hour arrive evenly, from an offset drawn from x, so that
// an hour of one event has it at a random second rather than at its end:
// by second o of the hour, floor((v*o + phase) / 3600) have arrived,
// which is 0 at its start, v at its end, and never decreases.
func (sp span) part(v, h int64, x uint64) int64 {
	if sp.live && (h == sp.first || h == sp.last) {
		return sp.edge(v, h, x)
	}
	return v // a whole hour; part is kept small enough to be inlined
}

// edge is part for the first and the last hour of a Live site's range.
func (sp span) edge(v, h int64, x uint64) int64 {
	if sp.secs(h) == 3600 {
		return v
	}
	phase := int64(mix64(x) % 3600)
	by := func(o int64) int64 { return (v*o + phase) / 3600 }
	return by(min(sp.to-h*3600, 3600)) - by(max(sp.from-h*3600, 0))
}

// at is the instant off seconds (0 <= off < 3600) into hour h, moved into
// the part of the hour the range covers.
func (sp span) at(h, off int64) time.Time {
	if secs := sp.secs(h); secs != 3600 {
		off = max(sp.from-h*3600, 0) + off*secs/3600
	}
	return time.Unix(h*3600+off, 0).UTC()
}
