package backfill

import (
	"fmt"
	"os"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// exporterUses: the backfill's own ledger entries from an earlier run do not count.
func exporterUses(path string, now time.Time) bool {
	for _, p := range []string{path, path + ".owner"} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	l := statefiles.LedgerFor(path)
	if sites, err := l.Sites(); err == nil && len(sites) > 0 {
		return true
	}
	keys, _, err := l.Read(now)
	if err != nil {
		return false
	}
	for _, e := range keys {
		if len(e.Writers[statefiles.Exporter]) > 0 {
			return true
		}
	}
	return false
}

func (e *backfillEnv) sayLedger(path string) {
	switch {
	case path == "":
	case exporterUses(path, e.now()):
		fmt.Fprintf(e.stderr, "%s: sharing the budget with the exporter through %s\n", backfillCmdName, path)
	default:
		fmt.Fprintf(e.stderr, "%s: no exporter uses %s (no state file, owner file or exporter requests in its ledger): the budget is shared with no exporter; "+
			"this run records its requests in %s so that an exporter started on that --storage.path counts them (give the exporter's --storage.path to share its budget, or --storage.path= to record nothing)\n",
			backfillCmdName, path, statefiles.LedgerFor(path).Path())
	}
}
