package main

import (
	"fmt"
	"io"
)

func runJobs(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "mintlify_exporter jobs: not available in this build yet")
	return 2
}
