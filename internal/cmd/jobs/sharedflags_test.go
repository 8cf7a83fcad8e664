package jobs

import (
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestSharedFlags: a flag the jobs command shares with the other commands
// means the same as in each of them: same name, default, environment
// variable, placeholder and first sentence of help; the table of
// docs/configuration.md says which command has which, and a deprecated
// name is hidden and still accepted.
func TestSharedFlags(t *testing.T) {
	app, _ := newJobsApp(&jobsOptions{})
	testkit.CheckSharedFlags(t, "jobs", app)
}
