package main

// The figures, their units, and the tables: each round with its ratios to
// etcd and the machine's load, and the medians over the rounds in
// markdown.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

var systemTitle = map[string]string{"grpc": "crdstore gRPC", "http": "crdstore HTTP", "etcd": "etcd"}

type figure struct {
	key, label, unit string
}

func (f figure) format(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	switch f.unit {
	case "/s":
		return thousands(int64(math.Round(v)))
	case "ms":
		return significant(v) + " ms"
	case "%":
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	case "µs":
		return significant(v) + " µs"
	case "MB":
		return thousands(int64(math.Round(v))) + " MB"
	default:
		return thousands(int64(math.Round(v)))
	}
}

func figureList(c *config) []figure {
	w := fmt.Sprintf("%s watchers at %s writes/s", thousands(int64(c.watchers)), thousands(int64(c.watchRate)))
	l := "list of " + thousands(int64(c.listObjects))
	figs := []figure{
		{"create1", "creates/s, 1 client", "/s"},
		{"create", fmt.Sprintf("creates/s, %d clients", c.clients), "/s"},
		{"create_cpu", fmt.Sprintf("server CPU per create, %d clients", c.clients), "µs"},
		{"create_bench_cpu", fmt.Sprintf("load generator CPU per create, %d clients", c.clients), "µs"},
		{"update", fmt.Sprintf("updates/s, %d clients", c.clients), "/s"},
		{"update_cpu", "server CPU per update", "µs"},
		{"update_bench_cpu", "load generator CPU per update", "µs"},
		{"get", fmt.Sprintf("gets/s, %d clients", c.clients), "/s"},
		{"get_p99", "get p99", "ms"},
		{"get_cpu", "server CPU per get", "µs"},
		{"get_bench_cpu", "load generator CPU per get", "µs"},
		{"create1_p50", "create latency p50, 1 client", "ms"},
		{"list", l + ", whole", "ms"},
		{"list_paged", fmt.Sprintf("%s, pages of %d", l, c.listPage), "ms"},
		{"list_cpu", "server CPU per " + l + ", whole", "ms"},
		{"list_paged_cpu", "server CPU per " + l + ", paged", "ms"},
		{"watch_delivered", w + ": delivered", "%"},
		{"watch_cutoffs", w + ": cut-offs", ""},
		{"watch_c2r_p50", w + ": commit-to-receipt p50", "ms"},
		{"watch_c2r_p99", w + ": commit-to-receipt p99", "ms"},
		{"watch_write_p99", w + ": write p99", "ms"},
		{"watch_cpu", w + ": server CPU per event delivered", "µs"},
		{"watch_bench_cpu", w + ": load generator CPU per event delivered", "µs"},
		{"nowatch_write_p99", fmt.Sprintf("write p99 at %s writes/s, no watchers", thousands(int64(c.watchRate))), "ms"},
		{"rss", "RSS after the suite", "MB"},
	}
	return figs
}

type roundResult struct {
	values                map[string]map[string]float64
	loadBefore, loadAfter string
}

func (r roundResult) value(sys, key string) float64 {
	if v, ok := r.values[sys][key]; ok {
		return v
	}
	return math.NaN()
}

// ratio is v/etcd, NaN when either is missing or etcd's is 0.
func ratio(v, etcd float64) float64 {
	if math.IsNaN(v) || math.IsNaN(etcd) || etcd == 0 {
		return math.NaN()
	}
	return v / etcd
}

func formatRatio(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "×"
}

// others are the systems compared with etcd.
func others(c *config) []string {
	var out []string
	for _, s := range c.systems {
		if s != "etcd" {
			out = append(out, s)
		}
	}
	return out
}

func hasEtcd(c *config) bool { return slices.Contains(c.systems, "etcd") }

func header(c *config) string {
	h := "| |"
	for _, s := range c.systems {
		h += " " + systemTitle[s] + " |"
	}
	if hasEtcd(c) {
		for _, s := range others(c) {
			h += " " + systemTitle[s] + " / etcd |"
		}
	}
	n := strings.Count(h, "|") - 1
	return h + "\n|" + strings.Repeat("---|", n)
}

func printRound(c *config, figs []figure, n int, r roundResult) {
	fmt.Printf("\nround %d, load average %s before and %s after:\n\n%s\n", n, r.loadBefore, r.loadAfter, header(c))
	for _, f := range figs {
		row := "| " + f.label + " |"
		for _, s := range c.systems {
			row += " " + f.format(r.value(s, f.key)) + " |"
		}
		if hasEtcd(c) {
			for _, s := range others(c) {
				row += " " + formatRatio(ratio(r.value(s, f.key), r.value("etcd", f.key))) + " |"
			}
		}
		fmt.Println(row)
	}
}

func printMedians(c *config, figs []figure, rounds []roundResult) {
	var loads []string
	for i, r := range rounds {
		loads = append(loads, fmt.Sprintf("round %d: %s → %s", i+1, r.loadBefore, r.loadAfter))
	}
	fmt.Printf("\nmedians of %d rounds (ratios: the median of each round's ratio); load averages %s\n\n%s\n",
		len(rounds), strings.Join(loads, "; "), header(c))
	for _, f := range figs {
		row := "| " + f.label + " |"
		for _, s := range c.systems {
			row += " " + f.format(median(rounds, func(r roundResult) float64 { return r.value(s, f.key) })) + " |"
		}
		if hasEtcd(c) {
			for _, s := range others(c) {
				row += " " + formatRatio(median(rounds, func(r roundResult) float64 {
					return ratio(r.value(s, f.key), r.value("etcd", f.key))
				})) + " |"
			}
		}
		fmt.Println(row)
	}
}

// median is the median of the rounds' values that exist.
func median(rounds []roundResult, value func(roundResult) float64) float64 {
	var vs []float64
	for _, r := range rounds {
		if v := value(r); !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// percentile is the p-th percentile (nearest rank) of ds, which it sorts.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(math.Ceil(p/100*float64(len(ds)))) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// significant is v with three significant digits (at least one decimal).
func significant(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return thousands(int64(math.Round(v)))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
