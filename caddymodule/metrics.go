package caddymodule

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the module's Prometheus series, registered in Caddy's
// metrics registry (served by Caddy's metrics endpoint), labelled by bundle.
type metrics struct {
	injected *prometheus.CounterVec // pages served with blocks
	added    *prometheus.CounterVec // bytes of comments added
	age      *prometheus.GaugeVec   // seconds since the current generation was made
	blocks   *prometheus.GaugeVec   // blocks in the current generation
	skipped  *prometheus.CounterVec // eligible pages served untouched, by reason
}

func newMetrics(reg prometheus.Registerer) *metrics {
	const ns, sub = "caddy", "lazarus"
	m := &metrics{
		injected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "pages_injected_total",
			Help: "Pages served with Lazarus blocks."}, []string{"bundle"}),
		added: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "bytes_added_total",
			Help: "Bytes of Lazarus comments added to pages."}, []string{"bundle"}),
		age: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "generation_age_seconds",
			Help: "Age of the generation being served."}, []string{"bundle"}),
		blocks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "generation_blocks",
			Help: "Blocks in the generation being served."}, []string{"bundle"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "pages_skipped_total",
			Help: "Eligible HTML pages served without blocks, by reason."}, []string{"bundle", "reason"}),
	}
	if reg == nil {
		return m
	}
	m.injected = register(reg, m.injected)
	m.added = register(reg, m.added)
	m.age = register(reg, m.age)
	m.blocks = register(reg, m.blocks)
	m.skipped = register(reg, m.skipped)
	return m
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
