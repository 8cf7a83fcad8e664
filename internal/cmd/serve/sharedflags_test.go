package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestSharedFlags: a flag the exporter shares with the other commands
// means the same as in each of them: same name, default, environment
// variable, placeholder and first sentence of help; the table of
// docs/configuration.md says which command has which.
func TestSharedFlags(t *testing.T) {
	testkit.CheckSharedFlags(t, "exporter", newApp(&flags{}))
}

// TestEveryKindIsKnown is the exporter's part of the table of collector
// kinds (the root package's test of that name has the rest): each kind
// has its --collector flag with the table's default.
func TestEveryKindIsKnown(t *testing.T) {
	defaults := map[string][]string{}
	for _, f := range newApp(&flags{}).Model().Flags {
		defaults[f.Name] = f.Default
	}
	for _, k := range collector.All {
		def, ok := defaults["collector."+k.Name]
		if !ok {
			t.Errorf("the exporter has no --collector.%s", k.Name)
		} else if want := fmt.Sprint(k.Default); strings.Join(def, "") != want {
			t.Errorf("--collector.%s defaults to %v, the table says %s", k.Name, def, want)
		}
	}
}

// TestEveryKindSettingHasItsFlag: each setting a row of the table has
// (TopN, LookBack) has its flag, named after the kind, with the row's
// default, and the flag sets what the kind is given in single-project
// mode.
func TestEveryKindSettingHasItsFlag(t *testing.T) {
	settings := 0
	for _, k := range collector.All {
		args := []string{"--mintlify.project-id=p"}
		if k.TopN > 0 {
			args = append(args, "--"+k.Flag(spec.TopNSetting)+"=7")
		}
		if k.LookBack > 0 {
			args = append(args, "--"+k.Flag(spec.LookBackSetting)+"=30d")
		}
		if len(args) == 1 {
			continue
		}
		settings++
		t.Run(k.Name, func(t *testing.T) {
			var f flags
			if _, err := newApp(&f).Parse(args); err != nil {
				t.Fatal(err)
			}
			s := &configSource{f: &f, getenv: func(string) string { return "mint_flagtestkey_Q1w2E3r4" }}
			cfg, err := s.load()
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Global.TopN(k.Name); k.TopN > 0 && got != 7 {
				t.Errorf("--%s=7: top lists of %d", k.Flag(spec.TopNSetting), got)
			}
			if got := cfg.Global.LookBack(k.Name); k.LookBack > 0 && got != 30*24*time.Hour {
				t.Errorf("--%s=30d: look-back of %s", k.Flag(spec.LookBackSetting), got)
			}
			var defaults flags
			if _, err := newApp(&defaults).Parse([]string{"--mintlify.project-id=p"}); err != nil {
				t.Fatal(err)
			}
			if cfg, err = (&configSource{f: &defaults, getenv: s.getenv}).load(); err != nil {
				t.Fatal(err)
			}
			if cfg.Global.TopN(k.Name) != k.TopN || cfg.Global.LookBack(k.Name) != k.LookBack {
				t.Errorf("without the flags: top lists of %d, look-back of %s; the row says %d, %s", cfg.Global.TopN(k.Name), cfg.Global.LookBack(k.Name), k.TopN, k.LookBack)
			}
		})
	}
	if settings == 0 {
		t.Fatal("no kind has a setting of its own: nothing checked")
	}
}
