package mockapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// schema is the minimal JSON-schema dialect of testdata/contract (see its
// README.md).
type schema struct {
	Type                 string             `json:"type"`
	Nullable             bool               `json:"nullable"`
	Required             []string           `json:"required"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	Enum                 []string           `json:"enum"`
	Minimum              *float64           `json:"minimum"`
	Format               string             `json:"format"`
	AnyOf                []*schema          `json:"anyOf"`
}

func loadFixture(t *testing.T, name string) *schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "contract", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Operation string  `json:"operation"`
		Schema    *schema `json:"schema"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Schema == nil || f.Operation == "" {
		t.Fatalf("%s: bad fixture (%v)", name, err)
	}
	return f.Schema
}

// problems are what s finds wrong with the JSON body, decoded with
// UseNumber as check wants; a body that is no JSON fails the test.
func (s *schema) problems(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var problems []string
	s.check("$", v, &problems)
	return problems
}

// check validates v (decoded with UseNumber) against s, collecting problems.
func (s *schema) check(at string, v any, problems *[]string) {
	bad := func(format string, args ...any) { *problems = append(*problems, at+": "+fmt.Sprintf(format, args...)) }
	if len(s.AnyOf) > 0 {
		s.checkAnyOf(at, v, problems)
		return
	}
	if v == nil {
		if !s.Nullable {
			bad("null is not allowed")
		}
		return
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("want object, got %T", v)
			return
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				bad("required field %q missing", r)
			}
		}
		for k, val := range m {
			p := s.Properties[k]
			if p == nil {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					bad("field %q is not in the vendor schema", k)
				}
				continue
			}
			p.check(at+"."+k, val, problems)
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("want array, got %T", v)
			return
		}
		for i, e := range a {
			s.Items.check(fmt.Sprintf("%s[%d]", at, i), e, problems)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("want string, got %T", v)
			return
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			bad("%q not in enum %v", str, s.Enum)
		}
		switch s.Format {
		case "date-time":
			if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
				bad("not a date-time: %q", str)
			}
		case "ulid":
			if !validULID(str) {
				bad("not a ULID: %q", str)
			}
		case "uri":
			if u, err := url.Parse(str); err != nil || u.Scheme == "" || u.Host == "" {
				bad("not a URI: %q", str)
			}
		}
	case "number", "integer":
		n, ok := v.(json.Number)
		if !ok {
			bad("want %s, got %T", s.Type, v)
			return
		}
		f, err := n.Float64()
		if err != nil {
			bad("bad number %s", n)
		}
		if s.Type == "integer" && strings.ContainsAny(n.String(), ".eE") {
			bad("want integer, got %s", n)
		}
		if s.Minimum != nil && f < *s.Minimum {
			bad("%s below minimum %v", n, *s.Minimum)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("want boolean, got %T", v)
		}
	default:
		bad("fixture uses unknown type %q", s.Type)
	}
}

// checkAnyOf accepts v when one of the alternatives does; else it
// reports each alternative's problems.
func (s *schema) checkAnyOf(at string, v any, problems *[]string) {
	var all []string
	for i, alt := range s.AnyOf {
		var p []string
		alt.check(at, v, &p)
		if len(p) == 0 {
			return
		}
		for _, q := range p {
			all = append(all, fmt.Sprintf("(shape %d) %s", i, q))
		}
	}
	*problems = append(*problems, at+": matches none of the shapes: "+strings.Join(all, "; "))
}

func TestContract(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = 3 })
	s.SeedJob("p1", JobSeed{ID: "job_done", CreatedAt: t0.Add(-10 * time.Minute)})
	s.SeedJob("p1", JobSeed{ID: "job_archived", CreatedAt: t0.Add(-3 * time.Hour), NullRef: true})
	s.SeedJob("p1", JobSeed{ID: "job_failed", CreatedAt: t0.Add(-10 * time.Minute), Fail: true})
	q := "?" + week + "&limit=2"
	cases := []struct {
		name, method, path, key, body string
		status                        int
		fixture                       string
		before                        func()
	}{
		{"views", "GET", "/v1/analytics/p1/views" + q, keyRW, "", 200, "views_200.json", nil},
		{"visitors", "GET", "/v1/analytics/p1/visitors" + q, keyRW, "", 200, "visitors_200.json", nil},
		{"feedback", "GET", "/v1/analytics/p1/feedback/by-page" + q, keyRW, "", 200, "feedback_by_page_200.json", nil},
		// budget of 3 is used up now; the next analytics calls use another org's key.
		{"searches", "GET", "/v1/analytics/g1/searches?" + week + "&limit=3", keyOther, "", 200, "searches_200.json", nil},
		{"searches last page", "GET", "/v1/analytics/g1/searches?" + week + "&limit=100", keyOther, "", 200, "searches_200.json", nil},
		{"caller stats", "GET", "/v1/analytics/g1/assistant/caller-stats", keyOther, "", 200, "caller_stats_200.json", nil},
		{"create job", "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"x"}`, 201, "agent_job.json", nil},
		{"get completed job", "GET", "/v2/agent/p1/job/job_done", keyRW, "", 200, "agent_job.json", nil},
		{"get archived job", "GET", "/v2/agent/p1/job/job_archived", keyRW, "", 200, "agent_job.json", nil},
		{"get failed job", "GET", "/v2/agent/p1/job/job_failed", keyRW, "", 200, "agent_job.json", nil},
		{"send message", "POST", "/v2/agent/p1/job/job_done/message", keyRW, `{"prompt":"y"}`, 200, "agent_job.json", nil},
		{"analytics 400", "GET", "/v1/analytics/p1/views?limit=0", keyRW, "", 400, "analytics_error.json", nil},
		{"analytics 401", "GET", "/v1/analytics/p1/views", "mint_nope", "", 401, "analytics_error.json", nil},
		{"analytics 403", "GET", "/v1/analytics/g1/views", keyRW, "", 403, "analytics_error.json", nil},
		{"analytics 404", "GET", "/v1/analytics/nope/views", keyRW, "", 404, "analytics_error.json", nil},
		{"analytics 429", "GET", "/v1/analytics/p1/views", keyRW, "", 429, "analytics_error.json", nil},
		{"analytics 500 fault", "GET", "/v1/analytics/p1/visitors", keyRW, "", 500, "analytics_error.json",
			func() { s.SetFault(Fault{Endpoint: EndpointVisitors, Status: 500, Remaining: 1}) }},
		{"job 400", "POST", "/v2/agent/p1/job", keyRW, `{}`, 400, "agent_error.json", nil},
		{"job 401", "GET", "/v2/agent/p1/job/job_done", "", "", 401, "agent_error.json", nil},
		{"job 403", "POST", "/v2/agent/p1/job", keyRO, `{"prompt":"x"}`, 403, "agent_error.json", nil},
		{"job 404", "GET", "/v2/agent/p1/job/nope", keyRW, "", 404, "agent_error.json", nil},
		{"message 404", "POST", "/v2/agent/p1/job/nope/message", keyRW, `{"prompt":"x"}`, 404, "agent_error.json", nil},
		{"job 429", "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"x"}`, 429, "agent_error.json",
			func() { s.SetFault(Fault{Endpoint: EndpointCreateJob, Status: 429, Remaining: 1}) }},
		{"route 404", "GET", "/v3/nothing", keyRW, "", 404, "agent_error.json", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.before != nil {
				c.before()
			}
			w := do(s, c.method, c.path, c.key, c.body)
			wantStatus(t, w, c.status)
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			for _, p := range loadFixture(t, c.fixture).problems(t, w.Body.Bytes()) {
				t.Error(p)
			}
		})
	}
}

// TestContractFixturesCatchDrift proves the checker is not vacuous: a body
// with a missing field, a wrong type or an unknown enum fails.
func TestContractFixturesCatchDrift(t *testing.T) {
	job := loadFixture(t, "agent_job.json")
	for _, body := range []string{
		`{"id":"a","status":"done","source":{"repository":"https://github.com/a/b","ref":null},"model":"m","prLink":null,"createdAt":"2025-01-01T00:00:00Z","archivedAt":null}`,
		`{"id":"a","status":"active","source":{"repository":"https://github.com/a/b","ref":null},"model":"m","prLink":null,"createdAt":"2025-01-01T00:00:00Z"}`,
		`{"id":1,"status":"active","source":{"repository":"https://github.com/a/b","ref":null},"model":"m","prLink":null,"createdAt":"2025-01-01T00:00:00Z","archivedAt":null}`,
		`{"id":"a","status":"active","source":{"repository":"https://github.com/a/b","ref":null},"model":null,"prLink":null,"createdAt":"2025-01-01T00:00:00Z","archivedAt":null}`,
		`{"id":"a","status":"active","source":{"repository":"https://github.com/a/b","ref":null},"model":"m","prLink":null,"createdAt":"yesterday","archivedAt":null}`,
		`{"id":"a","extra":1,"status":"active","source":{"repository":"https://github.com/a/b","ref":null},"model":"m","prLink":null,"createdAt":"2025-01-01T00:00:00Z","archivedAt":null}`,
	} {
		if len(job.problems(t, []byte(body))) == 0 {
			t.Errorf("accepted %s", body)
		}
	}
	var problems []string
	loadFixture(t, "searches_200.json").check("$", map[string]any{"searches": []any{}, "totalSearches": json.Number("1.5"), "nextCursor": nil}, &problems)
	if len(problems) != 1 {
		t.Errorf("integer check: %v", problems)
	}
}
