//go:build !unix

package config

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
