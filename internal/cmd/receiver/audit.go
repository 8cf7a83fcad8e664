package receiver

// The audit log, one JSON line per decision appended and synced, tells after the fact what the receiver did and
// why; past maxBytes it rotates (FILE.1 the newest old one).

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

type auditRecord struct {
	Time         time.Time `json:"time"`
	Route        string    `json:"route"`
	GroupKey     string    `json:"group_key"`
	Fingerprints []string  `json:"fingerprints"`
	Project      string    `json:"project"`
	Action       string    `json:"action"`
	AutomationID string    `json:"automation_id,omitempty"`
	TemplateHash string    `json:"template_hash,omitempty"`
	Prompt       string    `json:"prompt,omitempty"`
	Outcome      string    `json:"outcome"`
	Reason       string    `json:"reason,omitempty"`
	JobID        string    `json:"job_id,omitempty"`
	RunID        string    `json:"run_id,omitempty"`
	PRLink       string    `json:"pr_link,omitempty"`
	DryRun       bool      `json:"dry_run,omitempty"`
}

// auditLog: callers hold the receiver's lock.
type auditLog struct {
	path     string
	maxBytes int64
	keep     int
	f        *os.File
	size     int64
}

func openAudit(path string, maxBytes int64, keep int) (*auditLog, error) {
	a := &auditLog{path: path, maxBytes: maxBytes, keep: keep}
	return a, a.open()
}

// open uses safefile.Create: no symbolic link followed, no FIFO waited on, created for the directory's owner.
func (a *auditLog) open() error {
	f, err := safefile.Create(a.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	a.f, a.size = f, st.Size()
	return nil
}

func (a *auditLog) write(rec *auditRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if a.size > 0 && a.size+int64(len(line)) > a.maxBytes {
		if err := a.rotate(); err != nil {
			return err
		}
	}
	n, err := a.f.Write(line)
	a.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit log %s: %w", a.path, err)
	}
	return a.f.Sync()
}

func (a *auditLog) rotate() error {
	a.f.Close()
	_ = os.Remove(a.path + "." + strconv.Itoa(a.keep))
	for i := a.keep - 1; i >= 1; i-- {
		_ = os.Rename(a.path+"."+strconv.Itoa(i), a.path+"."+strconv.Itoa(i+1))
	}
	if a.keep > 0 {
		if err := os.Rename(a.path, a.path+".1"); err != nil {
			return fmt.Errorf("audit log: rotating: %w", err)
		}
	} else if err := os.Remove(a.path); err != nil {
		return fmt.Errorf("audit log: rotating: %w", err)
	}
	return a.open()
}

func (a *auditLog) close() error { return a.f.Close() }
