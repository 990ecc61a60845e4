// Command configcheck checks the docker-compose stack's configuration
// files with the parsers of the programs that read them, since their
// images cannot be pulled where the tests run:
//
//   - every PromQL expression of the Grafana dashboard parses with
//     Prometheus' own parser (Grafana's variables substituted first), and
//     every series selector in it (and in its label_values variables)
//     matches at least one series a live crdstore exported, with every
//     label it matches on or groups by carried by such a series;
//   - the Prometheus configuration loads with Prometheus' config.LoadFile;
//   - the OpenTelemetry Collector configuration unmarshals into, and
//     validates as, the configs of the collector's own components (the
//     ones it names, at the image's release).
//
// Usage: configcheck -metrics SCRAPE... [-dashboard F] [-prometheus F] [-collector F]
// where each SCRAPE is a file holding a /metrics answer in the Prometheus
// text format. Paths default to the repository's deploy/ files, relative
// to the repository root (the working directory of scripts/test).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	var scrapes files
	flag.Var(&scrapes, "metrics", "a /metrics scrape of crdstore (repeatable)")
	dashboard := flag.String("dashboard", "deploy/grafana/dashboards/crdstore.json", "the Grafana dashboard")
	prom := flag.String("prometheus", "deploy/prometheus.yml", "the Prometheus configuration")
	collector := flag.String("collector", "deploy/otel-collector.yaml", "the OpenTelemetry Collector configuration")
	flag.Parse()

	var failures []string
	fail := func(format string, args ...any) { failures = append(failures, fmt.Sprintf(format, args...)) }

	if len(scrapes) == 0 {
		fail("no -metrics scrape given: the dashboard's selectors need crdstore's series to be checked against")
	} else {
		exported, err := readScrapes(scrapes)
		if err != nil {
			fail("%v", err)
		} else {
			n, errs := checkDashboard(*dashboard, exported)
			for _, e := range errs {
				fail("%s: %v", *dashboard, e)
			}
			fmt.Printf("configcheck: %s: %d PromQL expressions parsed, selectors checked against %d exported series names\n",
				*dashboard, n, len(exported.names()))
		}
	}
	if err := checkPrometheus(*prom); err != nil {
		fail("%s: %v", *prom, err)
	} else {
		fmt.Printf("configcheck: %s: loaded by Prometheus' config.LoadFile\n", *prom)
	}
	if summary, err := checkCollector(*collector); err != nil {
		fail("%s: %v", *collector, err)
	} else {
		fmt.Printf("configcheck: %s: %s\n", *collector, summary)
	}
	if len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, "configcheck:", f)
		}
		os.Exit(1)
	}
}
