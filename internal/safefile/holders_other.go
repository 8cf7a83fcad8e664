//go:build !linux

package safefile

import "os"

// Holders names no process where the system does not tell them.
func Holders(*os.File) []int { return nil }

// DeletedHolders names no process where the system does not tell them.
func DeletedHolders(string) []int { return nil }
