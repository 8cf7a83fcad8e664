package secret

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestSecretNeverPrints(t *testing.T) {
	const raw = "mint_supersecretvalue"
	s := New(raw)
	holder := struct {
		Key   Secret
		Ptr   *Secret
		Inner struct{ K Secret }
		// unexported: fmt reaches it by reflection, not through methods.
		hidden Secret
	}{Key: s, Ptr: &s, hidden: s}
	holder.Inner.K = s

	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		outs = append(outs, fmt.Sprintf(verb, holder), fmt.Sprintf(verb, s))
	}
	js, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	outs = append(outs, string(js))
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	logger.Debug("key", "k", s, "holder", holder)
	jbuf := &bytes.Buffer{}
	slog.New(slog.NewJSONHandler(jbuf, nil)).Info("key", "k", s)
	outs = append(outs, buf.String(), jbuf.String())

	for _, o := range outs {
		if strings.Contains(o, raw) || strings.Contains(o, "supersecret") {
			t.Errorf("secret leaked in %q", o)
		}
		if !strings.Contains(o, Redacted) && !strings.Contains(o, `\u003csecret\u003e`) {
			t.Errorf("output %q does not show the redaction marker", o)
		}
	}
	if s.Reveal() != raw {
		t.Fatalf("Reveal() = %q", s.Reveal())
	}
	if (Secret{}).Reveal() != "" || New("").Reveal() != "" {
		t.Fatal("zero Secret not empty")
	}
}
