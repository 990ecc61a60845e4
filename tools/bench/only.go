package main

// -only: a narrower run for iterating on one part of the suite. With
// "-only write,get" each system is measured on creates (one client, then
// all), updates and gets, and left there: no lists, no watch load. The
// figures of the rest are not printed.

import (
	"fmt"
	"slices"
	"strings"
)

// onlyParts are the parts -only may name.
var onlyParts = []string{"write", "get"}

// onlyFigureKeys are the figures measured by the write and get parts.
var onlyFigureKeys = []string{"create1", "create1_p50", "create", "update", "get", "get_p99"}

// parseOnly checks the value of -only: empty (the whole suite) or parts
// from onlyParts.
func parseOnly(value string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	parts := strings.Split(value, ",")
	for _, p := range parts {
		if !slices.Contains(onlyParts, p) {
			return nil, fmt.Errorf("unknown part %q in -only (%s)", p, strings.Join(onlyParts, ", "))
		}
	}
	return parts, nil
}

// onlyFigures keeps the figures -only measures.
func onlyFigures(c *config, figs []figure) []figure {
	if len(c.only) == 0 {
		return figs
	}
	return slices.DeleteFunc(figs, func(f figure) bool { return !slices.Contains(onlyFigureKeys, f.key) })
}
