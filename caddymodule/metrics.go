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
	injected *prometheus.CounterVec // pages served with blocks
	added    *prometheus.CounterVec // bytes of comments added
	age      *prometheus.GaugeVec   // seconds since the current generation was made
	blocks   *prometheus.GaugeVec   // blocks in the current generation
	skipped  *prometheus.CounterVec // eligible pages served untouched, by reason
	carriers *prometheus.GaugeVec   // carriers per block: min, median, max
	builds   *prometheus.CounterVec // background builds, by result
	history  *prometheus.CounterVec // page versions for the serve history, by result
	// The scheduled audit (audit.go).
	auditAge    *prometheus.GaugeVec   // seconds since the newest generation recoverable from the archives was made, -1 if none
	auditProb   *prometheus.GaugeVec   // P_rec of the newest generation now, by model view
	auditBlocks *prometheus.GaugeVec   // the newest generation's data blocks: archived (at most k per stripe) and needed
	audits      *prometheus.CounterVec // audits, by result: done, failed
}

// counters are the module's counters, shared by the metrics of every
// config load (see metrics).
type counters struct {
	injected, added, skipped, builds, history, audits *prometheus.CounterVec
}

// processCounters are the process's counters, made on first use.
var processCounters = sync.OnceValue(newCounters)

func newCounters() *counters {
	const ns, sub = "caddy", "lazarus"
	return &counters{
		injected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "pages_injected_total",
			Help: "Pages served with Lazarus blocks."}, []string{"site"}),
		added: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "bytes_added_total",
			Help: "Bytes of Lazarus comments added to pages."}, []string{"site"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "pages_skipped_total",
			Help: "Eligible HTML pages served without blocks, by reason."}, []string{"site", "reason"}),
		builds: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "builds_total",
			Help: "Background generation builds, by result: new, unchanged, failed."}, []string{"site", "result"}),
		history: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "history_versions_total",
			Help: "Page versions for the serve history, by result: recorded, known (stored already), dropped (queue full), full (record limit), invalid, failed."}, []string{"site", "result"}),
		audits: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "audits_total",
			Help: "Scheduled archive audits, by result: done, failed (the audit could not run, or could not read the archives: every source failed, or the key is not the site's)."}, []string{"site", "result"}),
	}
}

// newMetrics makes the gauges and registers them and c's counters in reg
// (nil registers nothing).
func newMetrics(reg prometheus.Registerer, c *counters) *metrics {
	const ns, sub = "caddy", "lazarus"
	m := &metrics{
		injected: c.injected,
		added:    c.added,
		skipped:  c.skipped,
		builds:   c.builds,
		history:  c.history,
		audits:   c.audits,
		age: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "generation_age_seconds",
			Help: "Age of the generation being served."}, []string{"site"}),
		blocks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "generation_blocks",
			Help: "Blocks in the generation being served."}, []string{"site"}),
		carriers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "block_carriers",
			Help: "Verified pages (planned, or linked from the site) known to carry each block of the current generation (table pages add more): min, median, max over blocks."}, []string{"site", "stat"}),
		auditAge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "audit_generation_age_seconds",
			Help: "Age of the newest generation recoverable from the archives at the last audit, -1 if none is."}, []string{"site"}),
		auditProb: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "audit_recoverable_probability",
			Help: "Estimated probability that the newest generation is recoverable from the archives now, by model view: independent (optimistic) or sweep (correlated crawls)."}, []string{"site", "view"}),
		auditBlocks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "audit_blocks",
			Help: "Data blocks of the newest generation: archived (distinct, at most k per stripe, the archives combined) and needed (k per stripe)."}, []string{"site", "kind"}),
	}
	if reg == nil {
		return m
	}
	m.injected = register(reg, m.injected)
	m.added = register(reg, m.added)
	m.age = register(reg, m.age)
	m.blocks = register(reg, m.blocks)
	m.skipped = register(reg, m.skipped)
	m.carriers = register(reg, m.carriers)
	m.builds = register(reg, m.builds)
	m.history = register(reg, m.history)
	m.auditAge = register(reg, m.auditAge)
	m.auditProb = register(reg, m.auditProb)
	m.auditBlocks = register(reg, m.auditBlocks)
	m.audits = register(reg, m.audits)
	return m
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
