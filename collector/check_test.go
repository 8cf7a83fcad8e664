package collector

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// checkNow is when the examples are read: the day after their last.
var checkNow = time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)

// TestDecodeChecksPayloads: every kind's example payload is read back as
// it was written; one damaged as a state file can be (a count negative,
// huge or not a number, a date bad, repeated or after today, a day final
// before it could be, a name with control characters, an undocumented
// status) is refused with an error.
func TestDecodeChecksPayloads(t *testing.T) {
	for _, name := range Names() {
		p, ok := examples[name]
		if !ok {
			continue
		}
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(name, raw, checkNow); err != nil {
			t.Errorf("%s: its example refused: %v", name, err)
		}
	}
	conv := func(change func(*ConversationsPayload)) Payload {
		raw, _ := json.Marshal(examples[Conversations])
		var p ConversationsPayload
		_ = json.Unmarshal(raw, &p)
		change(&p)
		return &p
	}
	backlog := func(change func(*FeedbackBacklogPayload)) Payload {
		raw, _ := json.Marshal(examples[FeedbackBacklog])
		var p FeedbackBacklogPayload
		_ = json.Unmarshal(raw, &p)
		change(&p)
		return &p
	}
	for _, tc := range []struct {
		name, kind string
		p          Payload
	}{
		{"negative count", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Answered.Answer = -100 })},
		{"huge count", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Unanswered.Clarifying = 1e308 })},
		{"negative rows", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Rows = -1 })},
		{"repeated date", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].Date = p.Days[0].Date })},
		{"bad date", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].Date = "2026-11-31" })},
		{"day after today", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].Date = "2026-11-04" })},
		{"sealed day in the future", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].Date, p.Days[1].Final = "2026-11-05", true })},
		{"today final", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].Date, p.Days[1].Final = "2026-11-03", true })},
		{"control character in a category", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Categories[0].Name = "bill\x1b[2Jing\a" })},
		{"unescaped page", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Pages[0].Name = "/a\x07" })},
		{"repeated category", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Categories[1].Name = p.Days[0].Categories[0].Name })},
		{"walk marked final", Conversations, conv(func(p *ConversationsPayload) {
			p.Walk = &ConversationsWalk{Day: ConversationsDay{Date: "2026-11-03", Final: true}}
		})},
		{"undocumented status", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) { p.Backlog.Open[0].Status = "resolved" })},
		{"undocumented source", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) { p.Backlog.Open[0].Source = "email" })},
		{"oldest in the future", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) { p.Backlog.Oldest = checkNow.Add(time.Hour) })},
		{"NaN open count", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) { p.Backlog.Open[0].Count = math.NaN() })},
		{"negative searches", Searches, &SearchesPayload{Total: -1}},
		{"huge assistant count", Assistant, &AssistantPayload{Web: 1e13}},
		{"unescaped feedback path", Feedback, &FeedbackPayload{Pages: []FeedbackPage{{Path: "/a\x1b"}}}},
	} {
		code, _ := fetchedOf(tc.kind)
		if err := code.Check(tc.p, checkNow); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
		// Through Decode, as the state file and the journal are read
		// (NaN has no JSON: Check alone sees it).
		if raw, err := json.Marshal(tc.p); err == nil {
			if _, err := Decode(tc.kind, raw, checkNow); err == nil || strings.Contains(err.Error(), "\x1b") {
				t.Errorf("%s: Decode gave %v", tc.name, err)
			}
		}
	}
}

// TestDecodeHoldsValuesToEachOther (#46 case 12): a payload whose values
// are each well formed but do not agree is refused: a day's parts above
// its rows, a count above the walk's bound, a day outside the payload's
// month.
func TestDecodeHoldsValuesToEachOther(t *testing.T) {
	conv := func(change func(*ConversationsPayload)) Payload {
		raw, _ := json.Marshal(examples[Conversations])
		var p ConversationsPayload
		_ = json.Unmarshal(raw, &p)
		change(&p)
		return &p
	}
	backlog := func(change func(*FeedbackBacklogPayload)) Payload {
		raw, _ := json.Marshal(examples[FeedbackBacklog])
		var p FeedbackBacklogPayload
		_ = json.Unmarshal(raw, &p)
		change(&p)
		return &p
	}
	for _, tc := range []struct {
		name, kind string
		p          Payload
	}{
		{"a category above the day's rows", Conversations, conv(func(p *ConversationsPayload) {
			p.Days[1].Rows, p.Days[1].Unanswered.Answer, p.Days[1].Categories[0].Count = 1, 1, 1e9
		})},
		{"a page above the day's rows", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].Pages[0].Count = 1e9 })},
		{"answered above the day's rows", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Answered.Answer = 1e9 })},
		{"more without sources than answers", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].WithoutSources = 6 })},
		{"a cited page above the day's rows", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Cited[0].Count = 10 })},
		{"more started on pages than rows", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Started[1].Count = 6 })},
		{"more unanswered on a page than started on it", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Started[0].Count = 1 })},
		{"a cited page unescaped", Conversations, conv(func(p *ConversationsPayload) { p.Days[0].Cited[0].Name = "/a?q=x\x1b" })},
		{"negative dropped source URLs", Conversations, conv(func(p *ConversationsPayload) { p.Days[1].DroppedSources = -1 })},
		{"a walk's category above its rows", Conversations, conv(func(p *ConversationsPayload) {
			p.Walk = &ConversationsWalk{Day: ConversationsDay{Date: "2026-11-03", Rows: 1, Unanswered: ConversationsByType{Answer: 1},
				Categories: []NamedCount{{"billing", 1e9}}}}
		})},
		{"an October day in November", Conversations, conv(func(p *ConversationsPayload) {
			p.Days = append(p.Days, ConversationsDay{Date: "2026-10-31", Final: true, Rows: 1, Answered: ConversationsByType{Answer: 1}})
		})},
		{"a walk in another month", Conversations, conv(func(p *ConversationsPayload) {
			p.Walk = &ConversationsWalk{Day: ConversationsDay{Date: "2026-10-31"}}
		})},
		{"open entries above the walk's bound", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) {
			p.Backlog.Open[0].Count, p.Backlog.Entries = 1e12, 1e12
		})},
		{"open entries above those read", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) { p.Backlog.Open[0].Count = 1000 })},
		{"a walk's open entries above its bound", FeedbackBacklog, backlog(func(p *FeedbackBacklogPayload) {
			p.Walk = &FeedbackBacklogWalk{From: checkNow.Add(-time.Hour), To: checkNow,
				Counted: OpenFeedback{Entries: 200_000, Open: []FeedbackOpen{{"pending", "agent", 200_000}}}}
		})},
	} {
		raw, err := json.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(tc.kind, raw, checkNow); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// TestSealed: a day is sealed once its end and the grace are past, not a
// moment before; a stored final day is refused until then.
func TestSealed(t *testing.T) {
	d := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	sealedAt := d.AddDate(0, 0, 1).Add(ConversationsGrace)
	if Sealed(d, sealedAt.Add(-time.Nanosecond)) || !Sealed(d, sealedAt) {
		t.Errorf("sealed at %s: %v before, %v then", sealedAt, Sealed(d, sealedAt.Add(-time.Nanosecond)), Sealed(d, sealedAt))
	}
	p := &ConversationsPayload{Days: []ConversationsDay{{Date: "2026-11-02", Final: true}}}
	if err := (conversations{}).Check(p, sealedAt.Add(-time.Minute)); err == nil {
		t.Error("a day final within its grace accepted")
	}
	if err := (conversations{}).Check(p, sealedAt); err != nil {
		t.Errorf("a sealed day refused: %v", err)
	}
}
