package mockapi

import "time"

// A Live site counts only the part of an hour inside the range, so the hour under way grows by
// the second; whole-hour ranges count as a non-Live site's, which counts an hour from its start.

// span: for a non-Live site from and to are zero, so every range of the same buckets shares a
// cache entry.
type span struct {
	first, end int64
	live       bool
	from, to   int64
	last       int64 // end-1, for a Live site
}

func (s Site) spanOf(from, to time.Time) span {
	if !s.Live {
		first, end := HourRange(from, to)
		return span{first: first, end: end}
	}
	f, t := from.Unix(), max(to.Unix(), from.Unix())
	first, end := floorDiv(f, 3600), -floorDiv(-t, 3600)
	return span{first: first, end: end, live: true, from: f, to: t, last: end - 1}
}

func (sp span) secs(h int64) int64 {
	if !sp.live {
		return 3600
	}
	return min(sp.to, (h+1)*3600) - max(sp.from, h*3600)
}

// part spreads an hour's events evenly from a random phase, so one event lands at a random
// second, not at the hour's end; it never decreases.
func (sp span) part(v, h int64, x uint64) int64 {
	if sp.live && (h == sp.first || h == sp.last) {
		return sp.edge(v, h, x)
	}
	return v // a whole hour; part is kept small enough to be inlined
}

func (sp span) edge(v, h int64, x uint64) int64 {
	if sp.secs(h) == 3600 {
		return v
	}
	phase := int64(mix64(x) % 3600)
	by := func(o int64) int64 { return (v*o + phase) / 3600 }
	return by(min(sp.to-h*3600, 3600)) - by(max(sp.from-h*3600, 0))
}

func (sp span) at(h, off int64) time.Time {
	if secs := sp.secs(h); secs != 3600 {
		off = max(sp.from-h*3600, 0) + off*secs/3600
	}
	return time.Unix(h*3600+off, 0).UTC()
}
