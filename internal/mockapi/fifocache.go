package mockapi

import "sync"

// fifoCache keeps at most size values, oldest out first; a value computed twice at once is kept once.
type fifoCache[K comparable, V any] struct {
	mu    sync.Mutex
	size  int
	m     map[K]V
	order []K
}

func newFIFOCache[K comparable, V any](size int) *fifoCache[K, V] {
	return &fifoCache[K, V]{size: size, m: map[K]V{}}
}

func (c *fifoCache[K, V]) get(k K, compute func() V) V {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		return old
	}
	if len(c.order) >= c.size {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[k] = v
	c.order = append(c.order, k)
	return v
}
