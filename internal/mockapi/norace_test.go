//go:build !race

package mockapi

const raceEnabled = false
