package dashboards_test

// awaitingKind are the families the dashboard's "Documentation gaps" row,
// the rules and docs/metrics.md use before the exporter exposes them: the
// conversations and feedback-backlog collectors are built after their
// dashboard, rules and documentation. TestMetricNamesExist fails as soon
// as the exporter exposes one of them, so a family leaves this list when
// its collector lands and the list cannot outlive its reason; when it is
// empty, delete it.
var awaitingKind = map[string]bool{
	"mintlify_assistant_conversations_total":          true,
	"mintlify_assistant_unanswered_total":             true,
	"mintlify_assistant_unanswered_pages_total":       true,
	"mintlify_feedback_open":                          true,
	"mintlify_feedback_oldest_open_timestamp_seconds": true,
}
