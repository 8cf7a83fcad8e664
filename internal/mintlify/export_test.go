package mintlify

// IsServerError reports a 5xx answer; only tests ask (the exporter goes by
// Classify).
func IsServerError(err error) bool { return statusOf(err) >= 500 }
