package main

import (
	"fmt"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/healthcheckextension"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/otelcol/otelcoltest"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

// factories are the components deploy/otel-collector.yaml names, at the
// release of the image docker-compose.yml runs
// (otel/opentelemetry-collector-contrib:0.111.0).
func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = receiver.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Processors, err = processor.MakeFactoryMap(batchprocessor.NewFactory(), memorylimiterprocessor.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = exporter.MakeFactoryMap(otlpexporter.NewFactory(), debugexporter.NewFactory(), prometheusexporter.NewFactory()); err != nil {
		return f, err
	}
	if f.Extensions, err = extension.MakeFactoryMap(healthcheckextension.NewFactory()); err != nil {
		return f, err
	}
	f.Connectors, err = connector.MakeFactoryMap()
	return f, err
}

// checkCollector unmarshals the configuration into the components' own
// configs and validates it (each component's Validate, and the pipelines'
// references), as the collector does at start.
func checkCollector(path string) (string, error) {
	f, err := factories()
	if err != nil {
		return "", err
	}
	cfg, err := otelcoltest.LoadConfigAndValidate(path, f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("validated by the collector's components (%d receivers, %d processors, %d exporters, %d extensions, %d pipelines)",
		len(cfg.Receivers), len(cfg.Processors), len(cfg.Exporters), len(cfg.Extensions), len(cfg.Service.Pipelines)), nil
}
