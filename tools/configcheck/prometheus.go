package main

import (
	"github.com/go-kit/log"
	"github.com/prometheus/prometheus/config"
)

// checkPrometheus loads the configuration as Prometheus does at start
// (server mode, external labels not expanded).
func checkPrometheus(path string) error {
	_, err := config.LoadFile(path, false, false, log.NewNopLogger())
	return err
}
