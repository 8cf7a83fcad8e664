package mockapi

// A month is ~700 hour buckets of every path, asked for every hour: per-day sums, computed once
// a day, make a build cost its days and its edge hours.

type dayViews struct{ human, ai int64 }

type dayKey struct {
	seed  int64
	paths int
	day   int64 // hour bucket / 24
}

// dayCache: at 30 000 paths a day is 480 kB, so 96 days stay under 50 MB.
var dayCache = newFIFOCache[dayKey, []dayViews](96)

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

// wholeDays leaves out a Live site's first and last bucket, which it covers only in part.
func (sp span) wholeDays() (d0, d1 int64) {
	lo, hi := sp.first, sp.end
	if sp.live {
		lo, hi = sp.first+1, sp.last
	}
	d0 = -floorDiv(-lo, 24)
	return d0, max(floorDiv(hi, 24), d0)
}
