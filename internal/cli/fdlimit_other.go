//go:build !unix

package cli

// descriptorLimit: this system has no open-file limit of RLIMIT_NOFILE's
// kind, so --web.max-connections is held to maxConnsBound alone.
func descriptorLimit() (uint64, bool) { return 0, false }
