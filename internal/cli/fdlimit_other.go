//go:build !unix

package cli

func descriptorLimit() (uint64, bool) { return 0, false }
