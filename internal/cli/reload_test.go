package cli

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestReloadsKeepLastSuccess: a failed reload turns the gauge to 0 and
// keeps the time of the last success; the next success sets both.
func TestReloadsKeepLastSuccess(t *testing.T) {
	reg := prometheus.NewRegistry()
	start := time.Unix(1000, 0)
	r := NewReloads(reg, "x", "the file", start)
	check := func(ok, at float64) {
		t.Helper()
		if got := testutil.ToFloat64(r.ok); got != ok {
			t.Errorf("successful %g, want %g", got, ok)
		}
		if got := testutil.ToFloat64(r.at); got != at {
			t.Errorf("success time %g, want %g", got, at)
		}
	}
	check(1, 1000)
	r.Done(errors.New("bad"), start.Add(time.Minute))
	check(0, 1000)
	r.Done(nil, start.Add(2*time.Minute))
	check(1, 1120)
	if n, err := testutil.GatherAndCount(reg, "x_config_last_reload_successful", "x_config_last_reload_success_timestamp_seconds"); err != nil || n != 2 {
		t.Errorf("%d series registered (%v), want 2", n, err)
	}
}
