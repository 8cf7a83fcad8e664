package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"strings"
)

// trackfileRead reads the tracked-jobs file: one id a line, blank lines
// and # comments skipped, a missing file is an empty list. It stands in
// until internal/trackfile (which also locks against concurrent appends)
// is wired here.
func trackfileRead(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			ids = append(ids, line)
		}
	}
	return ids, sc.Err()
}
