package caddymodule

import (
	"errors"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the module's Prometheus series, registered in Caddy's
// metrics registry (served by Caddy's metrics endpoint), labelled by the
// handler's name (site).
type metrics struct {
	injected *prometheus.CounterVec // pages served with blocks
	added    *prometheus.CounterVec // bytes of comments added
	age      *prometheus.GaugeVec   // seconds since the current generation was made
	blocks   *prometheus.GaugeVec   // blocks in the current generation
	skipped  *prometheus.CounterVec // eligible pages served untouched, by reason
	carriers *prometheus.GaugeVec   // carriers per block: min, median, max
	builds   *prometheus.CounterVec // background builds, by result
}

func newMetrics(reg prometheus.Registerer) *metrics {
	const ns, sub = "caddy", "lazarus"
	m := &metrics{
		injected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "pages_injected_total",
			Help: "Pages served with Lazarus blocks."}, []string{"site"}),
		added: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "bytes_added_total",
			Help: "Bytes of Lazarus comments added to pages."}, []string{"site"}),
		age: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "generation_age_seconds",
			Help: "Age of the generation being served."}, []string{"site"}),
		blocks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "generation_blocks",
			Help: "Blocks in the generation being served."}, []string{"site"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "pages_skipped_total",
			Help: "Eligible HTML pages served without blocks, by reason."}, []string{"site", "reason"}),
		carriers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "block_carriers",
			Help: "Verified pages (planned, or linked from the site) known to carry each block of the current generation (table pages add more): min, median, max over blocks."}, []string{"site", "stat"}),
		builds: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "builds_total",
			Help: "Background generation builds, by result: new, unchanged, failed."}, []string{"site", "result"}),
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
