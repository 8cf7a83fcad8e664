// Package filelock holds advisory flock(2) locks between the exporter's
// processes: the tracked-jobs file (shared by the exporter and the jobs
// command) and the state file's ledger (shared by the exporter and the
// backfill). Where the platform has no flock(2), locking does nothing.
package filelock
