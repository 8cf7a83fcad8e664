// Package safefile holds the file primitives the exporter and its
// commands share, each with the same guards everywhere:
//
//   - Write and Begin/Commit write a file whole or not at all: the state
//     file, the ledger and the backfill's output are read by other
//     processes (a restart, promtool) that must never see half of one.
//     A path that exists as a symbolic link, a device, a FIFO, a socket
//     or a directory is never replaced (CheckTarget), and the temporary
//     files a crash may leave behind are named after their target so
//     that RemoveStale finds them.
//   - Read, Open and ReadAll read the small files given by path (the
//     configuration, API key files, the tracked-jobs file, the state
//     files) within a size cap: the file is opened without blocking
//     (O_NONBLOCK on Unix), so a FIFO is refused at once instead of
//     waiting for a writer; the opened descriptor is checked with
//     fstat(2), and anything but a regular file, or a file over its cap,
//     is refused before a byte is read; no more than cap+1 bytes are ever
//     read, should the file grow meanwhile; every error names the file's
//     role (e.g. "config file"), its path and, for a file too large, the
//     cap. Symbolic links are followed, like any open(2).
//   - Lock, TryLock and LockContext hold advisory flock(2) locks between
//     the exporter's processes: the tracked-jobs file (shared by the
//     exporter and the jobs command) and the state file's ledger (shared
//     by the exporter and the backfill). Where the platform has no
//     flock(2), locking does nothing.
//   - Create is the one open of a file written in place (appended, locked):
//     never through a symbolic link (O_NOFOLLOW), never blocking on a FIFO,
//     regular files only. Files it and Write create are mode 0600, and
//     directories MkdirAll makes are given their mode whatever the umask;
//     created by root, each gets its directory's owner (create.go). A file
//     of ours that cannot be read is kept aside rather than replaced
//     (MoveAside).
package safefile
