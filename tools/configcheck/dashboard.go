package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// series holds the exported series: for each metric name, the label names
// its series carry.
type series map[string]map[string]bool

func (s series) names() []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// readScrapes reads the series of /metrics answers with Prometheus' text
// format parser: each family's series names (a histogram's _bucket, _sum
// and _count) and the labels they carry, those with empty values included
// (a dashboard may group by a label that is empty on every series).
func readScrapes(paths []string) (series, error) {
	exported := series{}
	add := func(name string, pairs []*dto.LabelPair, extra ...string) {
		if exported[name] == nil {
			exported[name] = map[string]bool{}
		}
		for _, p := range pairs {
			exported[name][p.GetName()] = true
		}
		for _, l := range extra {
			exported[name][l] = true
		}
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		var parser expfmt.TextParser
		families, err := parser.TextToMetricFamilies(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for name, family := range families {
			for _, m := range family.GetMetric() {
				switch family.GetType() {
				case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
					add(name+"_bucket", m.GetLabel(), "le")
					add(name+"_sum", m.GetLabel())
					add(name+"_count", m.GetLabel())
				case dto.MetricType_SUMMARY:
					add(name, m.GetLabel(), "quantile")
					add(name+"_sum", m.GetLabel())
					add(name+"_count", m.GetLabel())
				default:
					add(name, m.GetLabel())
				}
			}
		}
	}
	if len(exported) == 0 {
		return nil, fmt.Errorf("the scrapes %v hold no series", paths)
	}
	return exported, nil
}

// Labels Prometheus attaches to every scraped series itself.
var targetLabels = map[string]bool{"job": true, "instance": true}

// Grafana's variables, as Grafana substitutes them before a query reaches
// Prometheus: its interval variables become durations, the dashboard's
// own become a plain value.
var (
	intervalVar = regexp.MustCompile(`\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}|\[\[(__rate_interval|__interval|__range)\]\]`)
	otherVar    = regexp.MustCompile(`\$\{[A-Za-z0-9_:]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z0-9_]+\]\]`)
	labelValues = regexp.MustCompile(`^\s*label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)
)

func substitute(expr string) string {
	expr = intervalVar.ReplaceAllString(expr, "5m")
	return otherVar.ReplaceAllString(expr, "crdstore")
}

// collect finds every PromQL expression of the dashboard: the panels'
// targets' `expr`, and the query of its variables.
func collect(v any, path string, exprs map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			p := path + "." + k
			if s, ok := child.(string); ok && (k == "expr" || (k == "query" && strings.Contains(path, "templating"))) {
				exprs[p] = s
				continue
			}
			collect(child, p, exprs)
		}
	case []any:
		for i, child := range v {
			collect(child, fmt.Sprintf("%s[%d]", path, i), exprs)
		}
	}
}

// checkDashboard parses every expression and checks its selectors against
// the exported series; the number of expressions and what is wrong.
func checkDashboard(path string, exported series) (int, []error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, []error{err}
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, []error{err}
	}
	exprs := map[string]string{}
	collect(doc, "", exprs)
	keys := make([]string, 0, len(exprs))
	for k := range exprs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, at := range keys {
		text := exprs[at]
		// A variable's label_values(selector, label): the selector must
		// match, and its series carry the label.
		var wantLabel string
		if m := labelValues.FindStringSubmatch(text); m != nil {
			text, wantLabel = m[1], m[2]
		}
		expr, err := parser.ParseExpr(substitute(text))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q does not parse: %w", at, exprs[at], err))
			continue
		}
		for _, e := range checkExpr(expr, exported, wantLabel) {
			errs = append(errs, fmt.Errorf("%s: %q: %w", at, exprs[at], e))
		}
	}
	if len(exprs) == 0 {
		errs = append(errs, fmt.Errorf("no PromQL expression found"))
	}
	return len(exprs), errs
}

// matching are the exported metric names a selector's name matchers
// accept.
func matching(vs *parser.VectorSelector, exported series) []string {
	var names []string
	for _, name := range exported.names() {
		ok := true
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && !m.Matches(name) {
				ok = false
			}
		}
		if ok {
			names = append(names, name)
		}
	}
	return names
}

// checkExpr checks that every selector of expr matches an exported series
// name, that the labels it matches on are carried by such a series, and
// that the labels an aggregation groups by are carried by the series it
// aggregates (`le` by histograms' buckets).
func checkExpr(expr parser.Expr, exported series, extra string) []error {
	var errs []error
	carried := func(names []string, label string) bool {
		if targetLabels[label] {
			return true
		}
		for _, n := range names {
			if exported[n][label] {
				return true
			}
		}
		return false
	}
	selected := func(node parser.Node) []string {
		var names []string
		parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok {
				names = append(names, matching(vs, exported)...)
			}
			return nil
		})
		return names
	}
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			names := matching(n, exported)
			if len(names) == 0 {
				errs = append(errs, fmt.Errorf("selector %s matches no series crdstore exports", n))
				return nil
			}
			for _, m := range n.LabelMatchers {
				// A matcher that accepts the empty value also accepts a
				// series without the label.
				if m.Name != labels.MetricName && !m.Matches("") && !carried(names, m.Name) {
					errs = append(errs, fmt.Errorf("selector %s: no series of %v carries the label %q", n, names, m.Name))
				}
			}
			if extra != "" && !carried(names, extra) {
				errs = append(errs, fmt.Errorf("label_values: no series of %v carries the label %q", names, extra))
			}
		case *parser.AggregateExpr:
			if n.Without {
				return nil
			}
			names := selected(n.Expr)
			if len(names) == 0 {
				return nil
			}
			for _, label := range n.Grouping {
				if !carried(names, label) {
					errs = append(errs, fmt.Errorf("%s groups by %q, which no series of %v carries", n.Op, label, names))
				}
			}
		}
		return nil
	})
	return errs
}
