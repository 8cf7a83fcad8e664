package backfill

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// journalVersion 2 is what 0.1.0 wrote (testdata/v0.1.0); version 1, from development builds before it, is
// refused (errPreReleaseJournal), and any other like a journal of other arguments.
const journalVersion = 2

// journalHeader holds the arguments that decide the output: a run resumes only under the same ones.
type journalHeader struct {
	Version int    `json:"version"`
	Args    string `json:"args"`
}

// journalPage is a views page as fetched or, with Collector set, another collector's answer as its payload.
type journalPage struct {
	Project   string          `json:"project"`
	Day       string          `json:"day"`
	Collector string          `json:"kind,omitempty"` // "": views
	Offset    int             `json:"offset"`
	Totals    mintlify.Counts `json:"totals"`
	Rows      []journalRow    `json:"rows,omitempty"`
	HasMore   bool            `json:"hasMore"`

	Payload json.RawMessage `json:"payload,omitempty"`
}

type journalRow struct {
	Path string `json:"path"`
	// Raw is the path as sent when it differs from Path, so a resumed walk tells rows apart as the first read
	// did; base64, as JSON strings cannot hold invalid UTF-8.
	Raw   []byte  `json:"raw,omitempty"`
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

func (jp journalPage) page() *mintlify.PageViewsPage {
	p := &mintlify.PageViewsPage{Totals: jp.Totals, HasMore: jp.HasMore, Rows: make([]mintlify.PageViewRow, len(jp.Rows))}
	for i, r := range jp.Rows {
		p.Rows[i] = mintlify.PageViewRow{Path: r.Path, Raw: string(r.Raw), Counts: mintlify.Counts{Human: r.Human, AI: r.AI, Total: r.Total}}
	}
	return p
}

// stdoutJournalPath names the journal of --output - after the arguments, so the same command finds it again,
// beside the state file or else in the user's cache directory.
func stdoutJournalPath(storagePath, args string) (string, error) {
	dir, perm := filepath.Dir(storagePath), os.FileMode(0o750)
	if storagePath == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir, perm = filepath.Join(cache, cli.Name), 0o700
	}
	if err := safefile.MkdirAll(dir, perm); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(args))
	return filepath.Join(dir, "backfill-"+hex.EncodeToString(sum[:8])+".partial"), nil
}

// journal is FILE.partial: every page fetched, so an interrupted run resumes where it stopped.
type journal struct {
	f     *os.File
	pages []journalPage
}

var errJournalArgs = errors.New("journal of other arguments")

// openJournal drops a last line cut short (the process died writing it); any other bad line is an error.
func openJournal(path, args string, force bool) (*journal, error) {
	f, err := openJournalFile(path, args, force)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f}
	if err := j.load(args); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

func (j *journal) load(args string) error {
	b, err := io.ReadAll(j.f)
	if err != nil {
		return err
	}
	good := 0 // bytes of whole, readable lines
	for i, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[len(line)-1] != '\n' {
			break // cut short by a crash while writing it; a header so: start again
		}
		if i == 0 {
			var h journalHeader
			if json.Unmarshal(line, &h) != nil {
				break // start again
			}
			if h.Version == 1 {
				return errPreReleaseJournal
			}
			if h.Version != journalVersion || h.Args != args {
				return errJournalArgs
			}
		} else {
			var p journalPage
			if err := json.Unmarshal(line, &p); err != nil {
				return fmt.Errorf("line %d is not a page: %v", i+1, err)
			}
			j.pages = append(j.pages, p)
		}
		good += len(line)
	}
	if err := j.f.Truncate(int64(good)); err != nil {
		return err
	}
	if _, err := j.f.Seek(int64(good), io.SeekStart); err != nil {
		return err
	}
	if good == 0 {
		return j.write(journalHeader{Version: journalVersion, Args: args})
	}
	return nil
}

// write syncs: a page in the journal is a request never made again.
func (j *journal) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return j.f.Sync()
}

func (j *journal) add(p journalPage) error {
	if err := j.write(p); err != nil {
		return err
	}
	j.pages = append(j.pages, p)
	return nil
}

func (j *journal) Close() error { return j.f.Close() }

type labelPair struct{ name, value string }

type omSeries struct {
	labels []labelPair
	values []omSample
}

type omSample struct {
	at    time.Time
	value float64
}

// omFamily is a counter family: name without _total.
type omFamily struct {
	name, help string
	series     map[string]*omSeries
}

// add: days must come in increasing order per series.
func (f *omFamily) add(labels []labelPair, end time.Time, v float64) {
	slices.SortFunc(labels, func(a, b labelPair) int { return strings.Compare(a.name, b.name) })
	var key strings.Builder
	for _, l := range labels {
		key.WriteString(l.name + "\x00" + l.value + "\x00")
	}
	s := f.series[key.String()]
	if s == nil {
		s = &omSeries{labels: labels}
		f.series[key.String()] = s
	}
	s.values = append(s.values, omSample{at: end, value: v})
}

func renderOpenMetrics(w io.Writer, families ...*omFamily) error {
	bw := bufio.NewWriter(w)
	for _, f := range families {
		if len(f.series) == 0 {
			continue
		}
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s counter\n", f.name, omEscaper.Replace(f.help), f.name)
		all := slices.Collect(maps.Values(f.series))
		slices.SortFunc(all, func(a, b *omSeries) int {
			return slices.CompareFunc(a.labels, b.labels, func(x, y labelPair) int {
				return cmp.Or(strings.Compare(x.name, y.name), strings.Compare(x.value, y.value))
			})
		})
		for _, s := range all {
			pairs := make([]string, len(s.labels))
			for i, l := range s.labels {
				pairs[i] = l.name + `="` + omEscaper.Replace(l.value) + `"`
			}
			labels := strings.Join(pairs, ",")
			for _, v := range s.values {
				fmt.Fprintf(bw, "%s_total{%s} %s %d\n", f.name, labels, strconv.FormatFloat(v.value, 'f', -1, 64), v.at.Unix())
			}
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

var omEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
