package mockapi

// reset forgets every value.
func (c *fifoCache[K, V]) reset() {
	c.mu.Lock()
	clear(c.m)
	c.order = nil
	c.mu.Unlock()
}

// len is how many values are kept.
func (c *fifoCache[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
