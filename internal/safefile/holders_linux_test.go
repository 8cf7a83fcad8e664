package safefile

import (
	"slices"
	"strings"
	"testing"
)

// TestParseLocks: only granted FLOCK locks on the file are named, each
// pid once; waiters, POSIX locks and other files are not.
func TestParseLocks(t *testing.T) {
	const dev = 8<<8 | 1 // 08:01
	in := strings.Join([]string{
		"1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF",
		"1: -> FLOCK  ADVISORY  WRITE 4243 08:01:1234 0 EOF",
		"2: POSIX  ADVISORY  WRITE 4244 08:01:1234 0 EOF",
		"3: FLOCK  ADVISORY  READ 4245 08:01:9999 0 EOF",
		"4: FLOCK  ADVISORY  READ 4246 08:01:1234 0 EOF",
		"5: FLOCK  ADVISORY  READ 4246 08:01:1234 0 EOF",
		"garbage",
	}, "\n")
	if got := parseLocks(strings.NewReader(in), dev, 1234); !slices.Equal(got, []int{4242, 4246}) {
		t.Fatalf("holders %v, want [4242 4246]", got)
	}
}
