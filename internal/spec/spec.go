// Package spec is what a collector is to the engine, the backfill and the exporter: its row (name, default,
// weight, windows, families, settings), its stored payload and its samples. The collectors are in collector/.
package spec

import (
	"slices"
	"strings"
	"time"
)

// Windows is what a collector counts over.
type Windows int

const (
	MonthAndWindows Windows = iota
	// WindowsOnly has no month counter: unique visitors do not add up over days.
	WindowsOnly
	// MonthOnly is for a collector whose rolling windows would cost too much.
	MonthOnly
	// Snapshot is gauges of the state now, without a window label.
	Snapshot
)

// Paging is how a collector reads its endpoint for a window.
type Paging int

const (
	OnePage Paging = iota
	OffsetPages
	// CursorPages collectors are each run against the simulator's cursor faults by TestCursorKindsUnderFaults.
	CursorPages
)

// HasMonth reports whether backfill can write the collector's counters for past days.
func (w Windows) HasMonth() bool { return w == MonthAndWindows || w == MonthOnly }

// Family is a metric family a collector exports; Help omits the exporter's note on its cache.
type Family struct {
	Name    string
	Help    string
	Labels  []string
	Counter bool // a month-to-date counter; else a gauge
	Month   bool // a gauge also shown as window="month"
	// Live: of the walk under way, not the cached data, so its HELP has no note on the cache.
	Live bool
}

// Collector is one collector's row and its code.
type Collector struct {
	Name     string
	Summary  string // for --collector.NAME and the docs
	Default  bool
	Weight   float64 // default share of a key's budget (collector_weights)
	Endpoint string  // the API path under /v1/analytics/{projectId}/
	Windows  Windows
	Paging   Paging
	Families []Family
	// Own settings with their defaults (zero: none); a *Key keeps the key 0.1.0 gave it.
	TopN        int
	TopNKey     string
	LookBack    time.Duration // how far back a Snapshot looks
	LookBackKey string
	Fetched     Fetched
	// Walk: its month walk's pages are saved for the backfill (page views).
	Walk bool
	// Bookkeeping are the families of how its windows were fetched (its Fetched is then a Bookkept), shown
	// even when the data is older than max_age, so a stuck walk can be seen.
	Bookkeeping []Family
}

const (
	TopNSetting     = "top-n"
	LookBackSetting = "look-back"
)

func (k Collector) Flag(setting string) string { return "collector." + k.Name + "." + setting }

// Key is the setting's key under global: the row's own, else collector_SETTING.NAME.
func (k Collector) Key(setting string) string {
	own := map[string]string{TopNSetting: k.TopNKey, LookBackSetting: k.LookBackKey}[setting]
	if own != "" {
		return own
	}
	return "collector_" + strings.ReplaceAll(setting, "-", "_") + "." + k.Name
}

// List is the collectors in the order they are documented.
type List []Collector

func (l List) Names() []string {
	names := make([]string, len(l))
	for i, k := range l {
		names[i] = k.Name
	}
	return names
}

func (l List) Lookup(name string) (Collector, bool) {
	for _, k := range l {
		if k.Name == name {
			return k, true
		}
	}
	return Collector{}, false
}

func (l List) Defaults() []string {
	var names []string
	for _, k := range l {
		if k.Default {
			names = append(names, k.Name)
		}
	}
	return names
}

// Family panics on a name the table lacks: only a mistake in the caller does that.
func (k Collector) Family(name string) Family {
	for _, f := range k.Families {
		if f.Name == name {
			return f
		}
	}
	panic("collector " + k.Name + " has no family " + name)
}

func (k Collector) Counters() []Family {
	return slices.DeleteFunc(slices.Clone(k.Families), func(f Family) bool { return !f.Counter })
}

// MonthOf is the month-to-date family of window family name: its _total counter, or the gauge
// itself if Month; ok is false for a top-N (a month's is no sum of its days').
func (k Collector) MonthOf(name string) (f Family, ok bool) {
	for _, f := range k.Families {
		if f.Counter && f.Name == name {
			return f, true // a sample of a MonthOnly collector names its counter
		}
	}
	for _, f := range k.Families {
		if f.Counter && f.Name == name+"_total" {
			return f, true
		}
	}
	for _, f := range k.Families {
		if f.Name == name && f.Month {
			return f, true
		}
	}
	return Family{}, false
}
