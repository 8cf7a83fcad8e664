package collector

import "time"

// ChargeForTest charges one analytics request to every organization, as a
// refresh does when it reserves its requests: under the ledger's lock,
// the ledger rewritten, no data changed.
func (e *Exporter) ChargeForTest() {
	e.saveWith(func() bool {
		e.storeMu.Lock()
		defer e.storeMu.Unlock()
		for _, o := range e.orgs {
			o.budget.TryTake()
		}
		return true
	})
}

// SetLockWaitForTest bounds the exporter's waits for the ledger's lock.
func (e *Exporter) SetLockWaitForTest(d time.Duration) { e.files.SetLockWait(d) }
