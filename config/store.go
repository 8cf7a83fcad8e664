package config

import (
	"sync"
	"sync/atomic"
)

// Store holds the running configuration and swaps it on reload. Readers get
// a pointer that stays valid and unchanged for as long as they keep it, so
// a sweep that started before a reload finishes with the settings it
// started with.
type Store struct {
	reload sync.Mutex // serializes reloads so an older file cannot win a race
	cur    atomic.Pointer[Config]
}

// NewStore returns a Store holding c.
func NewStore(c *Config) *Store {
	s := &Store{}
	s.cur.Store(c)
	return s
}

// Get returns the current configuration. Treat it as read-only.
func (s *Store) Get() *Config { return s.cur.Load() }

// ReloadFile loads path and swaps it in only if it is valid as a whole; on
// error the running configuration stays and the error is returned, so a
// bad edit never takes a working exporter down.
func (s *Store) ReloadFile(path string) error {
	s.reload.Lock()
	defer s.reload.Unlock()
	c, err := LoadFile(path)
	if err != nil {
		return err
	}
	s.cur.Store(c)
	return nil
}
