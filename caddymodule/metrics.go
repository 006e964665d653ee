package caddymodule

import (
	"errors"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the module's Prometheus series, registered in Caddy's
// metrics registry (served by Caddy's metrics endpoint), labelled by the
// handler's name (site).
//
// Caddy gives every config load a registry of its own, so collectors
// made per load would start from nothing on each `caddy reload`: a
// counter without a sample since the reload would not even be listed.
// The counters are therefore the process's (processCounters), made once
// and registered in each load's registry, and survive reloads as
// Prometheus counters should; the gauges are set afresh by each load
// (the generation loaded, the stored audit result).
type metrics struct {
	counters                      // the process's (registered in this load's registry)
	age      *prometheus.GaugeVec // seconds since the current generation was made
	blocks   *prometheus.GaugeVec // blocks in the current generation
	carriers *prometheus.GaugeVec // carriers per block: min, median, max
	// carrierPages are the site's carrier pages learned, the pages the
	// last build's generation needs, and the pages seen excluded.
	carrierPages *prometheus.GaugeVec
	// The scheduled audit (audit.go).
	auditAge    *prometheus.GaugeVec // seconds since the newest generation recoverable from the archives was made, -1 if none
	auditProb   *prometheus.GaugeVec // P_rec of the newest generation now, by model view
	auditBlocks *prometheus.GaugeVec // the newest generation's data blocks: archived (at most k per stripe) and needed
	// The generation state (archivestate.go): the served generation's
	// state, one-hot, and when it reached each, by archive.
	genState     *prometheus.GaugeVec
	genStateTime *prometheus.GaugeVec
}

// counters are the module's counters, shared by the metrics of every
// config load (see metrics).
type counters struct {
	injected *prometheus.CounterVec // pages served with blocks
	added    *prometheus.CounterVec // bytes of comments added
	skipped  *prometheus.CounterVec // eligible pages served untouched, by reason
	builds   *prometheus.CounterVec // background builds, by result
	history  *prometheus.CounterVec // page versions for the serve history, by result
	audits   *prometheus.CounterVec // audits, by result: done, failed
	// Capture requests (capture.go): runs by result, pages asked for by
	// their job's state.
	captures     *prometheus.CounterVec
	capturePages *prometheus.CounterVec
}

// processCounters are the process's counters, made on first use.
var processCounters = sync.OnceValue(newCounters)

func newCounters() *counters {
	return &counters{
		injected: counterVec("pages_injected_total", "Pages served with Lazarus blocks.", "site"),
		added:    counterVec("bytes_added_total", "Bytes of Lazarus comments added to pages.", "site"),
		skipped:  counterVec("pages_skipped_total", "Eligible HTML pages served without blocks, by reason.", "site", "reason"),
		builds:   counterVec("builds_total", "Background generation builds, by result: new, unchanged, failed.", "site", "result"),
		history: counterVec("history_versions_total",
			"Page versions for the serve history, by result: recorded, known (stored already), dropped (queue full), full (record limit), invalid, failed.", "site", "result"),
		audits: counterVec("audits_total",
			"Scheduled archive audits, by result: done, failed (the audit could not run, or could not read the archives: every source failed, or the key is not the site's).", "site", "result"),
		captures: counterVec("capture_requests_total",
			"Save Page Now capture request runs (one per new generation), by result: safe, requested (not safe yet), limited (daily limit or host paused), refused (the access key), failed.", "site", "result"),
		capturePages: counterVec("capture_pages_total",
			"Pages asked of Save Page Now, by the job's state: success, error, abandoned, not-sent.", "site", "state"),
	}
}

// newMetrics makes the gauges and registers them and c's counters in reg
// (nil registers nothing).
func newMetrics(reg prometheus.Registerer, c *counters) *metrics {
	m := &metrics{
		counters: *c,
		age:      gaugeVec("generation_age_seconds", "Age of the generation being served.", "site"),
		blocks:   gaugeVec("generation_blocks", "Blocks in the generation being served.", "site"),
		carriers: gaugeVec("block_carriers",
			"Verified pages (planned, or linked from the site) known to carry each block of the current generation (table pages add more): min, median, max over blocks.", "site", "stat"),
		carrierPages: gaugeVec("carrier_pages",
			"Pages of the site, at the last build: learned (served so far, linked, HTML, not excluded from archives; -1 before any is learned), needed (the fewest that hold k blocks of every stripe of the generation built) and excluded (noindex, noarchive). learned below needed: the generation cannot be recovered from the pages archives would keep.", "site", "kind"),
		auditAge: gaugeVec("audit_generation_age_seconds",
			"Age of the newest generation recoverable from the archives at the last audit, -1 if none is.", "site"),
		auditProb: gaugeVec("audit_recoverable_probability",
			"Probability (a lower bound, under the capture model fitted to the archives' history) that the archives hold enough of the newest generation now, by model view (\"model\").", "site", "view"),
		auditBlocks: gaugeVec("audit_blocks",
			"Data blocks of the newest generation: archived (distinct, at most k per stripe, the archives combined) and needed (k per stripe).", "site", "kind"),
		genState: gaugeVec("generation_state",
			"State of the generation being served, 1 for its state and 0 for the others: published, requested (Save Page Now was asked for its pages), confirmed (an audit found it recoverable from the archives combined).", "site", "state"),
		genStateTime: gaugeVec("generation_state_timestamp_seconds",
			"When the generation being served reached each state (Unix time): published; requested, by archive (the first request sent); confirmed, by the archives combined (archive \"\") and by each archive holding it on its own.", "site", "state", "archive"),
	}
	if reg == nil {
		return m
	}
	for _, c := range []**prometheus.CounterVec{&m.injected, &m.added, &m.skipped, &m.builds, &m.history, &m.audits, &m.captures, &m.capturePages} {
		*c = register(reg, *c)
	}
	for _, g := range []**prometheus.GaugeVec{&m.age, &m.blocks, &m.carriers, &m.carrierPages, &m.auditAge, &m.auditProb, &m.auditBlocks, &m.genState, &m.genStateTime} {
		*g = register(reg, *g)
	}
	return m
}

// The module's series are caddy_lazarus_NAME.
const metricsNamespace, metricsSubsystem = "caddy", "lazarus"

// counterVec makes the counter caddy_lazarus_NAME with labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: name, Help: help}, labels)
}

// gaugeVec makes the gauge caddy_lazarus_NAME with labels.
func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: metricsNamespace, Subsystem: metricsSubsystem, Name: name, Help: help}, labels)
}

// coverage sets the carriers-per-block gauges from per-block counts.
func (m *metrics) coverage(site string, counts []int) {
	if len(counts) == 0 {
		return
	}
	c := slices.Sorted(slices.Values(counts))
	m.carriers.WithLabelValues(site, "min").Set(float64(c[0]))
	m.carriers.WithLabelValues(site, "median").Set(float64(c[len(c)/2]))
	m.carriers.WithLabelValues(site, "max").Set(float64(c[len(c)-1]))
}

// register adds c to reg, or returns the equal collector already there
// (several lazarus handlers in one config share the series).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	return c
}
