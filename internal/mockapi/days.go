package mockapi

// A range of a month is some 700 hour buckets of every path, and the
// exporter asks for a growing month-to-date range every hour. Summing the
// whole days of a range from per-day sums, computed once a day and site,
// makes a build cost its days and its edge hours instead of every hour.

// dayViews is one path's human and AI views of one UTC day's 24 buckets.
type dayViews struct{ human, ai int64 }

type dayKey struct {
	seed  int64
	paths int
	day   int64 // hour bucket / 24
}

// dayCache bounds the per-day sums kept: at 30 000 paths a day is
// 480 kB, so 96 days (three months of one big site) stay under 50 MB.
var dayCache = newFIFOCache[dayKey, []dayViews](96)

// daySums is every path's views of day d (hours 24d to 24d+23, whole),
// from the cache or computed.
func (s Site) daySums(d int64, n int) []dayViews {
	return dayCache.get(dayKey{s.Seed, n, d}, func() []dayViews {
		v := make([]dayViews, n)
		for i := range n {
			for h := d * 24; h < d*24+24; h++ {
				human, ai := s.HourViews(i, h)
				v[i].human += human
				v[i].ai += ai
			}
		}
		return v
	})
}

// wholeDays is the days [d0, d1) whose 24 buckets sp covers whole: inside
// [first, end), and for a Live site off its first and last bucket, which
// it covers only in part.
func (sp span) wholeDays() (d0, d1 int64) {
	lo, hi := sp.first, sp.end
	if sp.live {
		lo, hi = sp.first+1, sp.last
	}
	d0, d1 = -floorDiv(-lo, 24), floorDiv(hi, 24)
	if d1 < d0 {
		d1 = d0
	}
	return d0, d1
}
