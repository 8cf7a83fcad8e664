package mockapi

import (
	"net/http"
	"slices"
	"strings"
)

// adminPrefix: assistant ("mint_dsc_") and search ("mint_us_") keys share "mint_" but are refused.
const adminPrefix = "mint_"

var foreignPrefixes = []string{"mint_dsc_", "mint_us_"}

func (s *Server) authorize(c *call) *response {
	an := c.rt.analytics
	h := c.r.Header.Get("Authorization")
	if h == "" {
		return errorResponse(http.StatusUnauthorized, an, "Missing Authorization header")
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return errorResponse(http.StatusUnauthorized, an, "Authorization header must be 'Bearer <api key>'")
	}
	if !strings.HasPrefix(token, adminPrefix) {
		return errorResponse(http.StatusUnauthorized, an, "Invalid API key")
	}
	if slices.ContainsFunc(foreignPrefixes, func(p string) bool { return strings.HasPrefix(token, p) }) {
		return errorResponse(http.StatusUnauthorized, an, "Invalid API key: an admin API key is required")
	}
	key, ok := s.keys[token] // read-only after New
	if !ok {
		return errorResponse(http.StatusUnauthorized, an, "Invalid API key")
	}
	c.key = key
	if c.r.Method == http.MethodPost && key.Scope != ReadWrite {
		return errorResponse(http.StatusForbidden, an, "API key does not have write access")
	}
	s.mu.Lock()
	site, known := s.projects[c.rt.project]
	s.mu.Unlock()
	if !known {
		return errorResponse(http.StatusNotFound, an, "Project not found")
	}
	if len(key.ProjectIDs) > 0 && !slices.Contains(key.ProjectIDs, c.rt.project) {
		return errorResponse(http.StatusForbidden, an, "API key does not have access to this project")
	}
	c.site = site
	return nil
}
