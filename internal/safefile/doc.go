// Package safefile holds the guarded file primitives every command shares: whole-or-nothing writes,
// capped non-blocking reads of regular files only, flock(2) locks, and creates that never follow a
// symbolic link and, made by root, take their directory's owner.
package safefile
