package config

import "testing"

// FuzzParse: no input may panic the parser, and an accepted config must
// pass its own validation again and have what the exporter relies on.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"keys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n",
		"global: {max_age: 1h, page_size: 250}\nkeys: [{name: a, api_key_file: /k}]\nprojects: [{id: p, windows: [24h, 7d], include_paths: ['^/docs/']}]\n",
		"keys: [{name: a, api_key_env: K, share: 0.5, reserve: 99}]\nprojects: [{id: p, max_paths: -1}]\n",
		"projects: [{id: p, windows: ['5x']}]\n",
		"---\n---\n",
		"global: !!binary aGVsbG8=\n",
		"&a [*a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config fails validation: %v", err)
		}
		if len(c.Projects) == 0 || len(c.Keys) == 0 {
			t.Fatal("accepted a config without projects or keys")
		}
		for _, p := range c.Projects {
			if p.KeyName(c) == "" {
				t.Fatalf("project %q has no key", p.ID)
			}
		}
		for _, k := range c.Keys {
			if k.EffectiveBudget() < 1 {
				t.Fatalf("key %q has no budget", k.Name)
			}
		}
	})
}
