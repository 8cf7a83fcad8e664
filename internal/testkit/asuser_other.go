//go:build !unix

package testkit

import "testing"

// Nobody is the unprivileged user and group AsUser runs tests as.
const Nobody = 65534

// AsUser skips where processes cannot be started as another user.
func AsUser(t *testing.T, uid, gid int, env ...string) bool {
	t.Helper()
	t.Skipf("running as uid %d needs a Unix system", uid)
	return false
}
