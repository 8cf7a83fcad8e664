package engine

// ChargeForTest charges one analytics request to every organization, as a
// refresh does when it reserves its requests: under the ledger's lock,
// the ledger rewritten, no data changed.
func (e *Engine) ChargeForTest() {
	tx := e.beginLedger()
	e.storeMu.Lock()
	for _, o := range e.orgs {
		o.budget.TryTake()
	}
	e.storeMu.Unlock()
	e.endLedger(tx, true)
}
