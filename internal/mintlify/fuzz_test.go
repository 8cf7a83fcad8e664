package mintlify

import (
	"testing"
)

// FuzzDecodeViews feeds arbitrary bodies to the views decoder: it must
// never panic, and whatever it accepts must satisfy what callers rely on.
func FuzzDecodeViews(f *testing.F) {
	for _, s := range []string{
		`{"totals":{"human":1,"ai":2,"total":3},"views":[{"path":"/a","human":1,"ai":2,"total":3}],"hasMore":false}`,
		`{"totals":{"human":0,"ai":0,"total":0},"views":[],"hasMore":true}`,
		`{"totals":{"human":1e308,"ai":-1,"total":3},"views":null,"hasMore":false}`,
		`{"totals":{},"views":[{}],"hasMore":1}`,
		`{"views":[{"path":"\ud800","human":1,"ai":1,"total":2}]}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var w wireViewsPage
		if err := decodeJSON(body, &w); err != nil {
			return
		}
		p := w.page
		for _, c := range []Counts{p.Totals} {
			if c.Human < 0 || c.AI < 0 || c.Total < 0 {
				t.Fatalf("negative totals accepted: %+v", c)
			}
		}
		for _, r := range p.Rows {
			if r.Human < 0 || r.AI < 0 || r.Total < 0 {
				t.Fatalf("negative row accepted: %+v", r)
			}
		}
	})
}

// FuzzDecodeJob does the same for the job object.
func FuzzDecodeJob(f *testing.F) {
	for _, s := range []string{
		`{"id":"j","status":"active","source":{"repository":"https://github.com/a/b","ref":null},"model":"m","prLink":null,"createdAt":"2026-01-01T00:00:00Z","archivedAt":null}`,
		`{"id":"j","status":"archived","archivedAt":"2026-01-01T00:00:00.123+02:00","prLink":""}`,
		`{"id":"","status":"active"}`,
		`{"id":"j","status":"weird"}`,
		`{"id":"j","status":"failed","createdAt":"yesterday"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var w wireJob
		if err := decodeJSON(body, &w); err != nil {
			return
		}
		j := w.job
		if j.ID == "" || !j.Status.valid() {
			t.Fatalf("accepted a job without id or with an unknown status: %+v", j)
		}
		if j.PRLink != nil && *j.PRLink == "" {
			t.Fatal("an empty prLink was kept")
		}
	})
}
