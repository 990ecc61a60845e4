package main

// -only: a narrower run for iterating on one part of the suite. With
// "-only write,get" each system is measured on creates (one client, then
// all), updates and gets, and left there: no lists, no watch load. With
// "-only watch", on writes without watchers, the watch load and RSS. With
// "-only list", on the whole and paged lists of the listed collection
// (filled first) and the server's CPU per list. The figures of the rest
// are not printed.

import (
	"fmt"
	"slices"
	"strings"
)

// onlyParts are the parts -only may name.
var onlyParts = []string{"write", "get", "list", "watch"}

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

// only says whether the run includes any of these parts.
func only(c *config, parts ...string) bool {
	return len(c.only) == 0 || slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(c.only, p) })
}

// partOf is the part that measures a figure.
func partOf(key string) string {
	switch {
	case strings.HasPrefix(key, "create") || strings.HasPrefix(key, "update"):
		return "write"
	case key == "get" || strings.HasPrefix(key, "get_"):
		return "get"
	case strings.HasPrefix(key, "watch_") || key == "nowatch_write_p99" || key == "rss":
		return "watch"
	}
	return "list"
}

// onlyFigures keeps the figures -only measures.
func onlyFigures(c *config, figs []figure) []figure {
	if len(c.only) == 0 {
		return figs
	}
	return slices.DeleteFunc(figs, func(f figure) bool { return !slices.Contains(c.only, partOf(f.key)) })
}
