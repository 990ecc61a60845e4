package main

// The generator: random structural schemas drawn from every list and map
// type server-side apply merges by, and random sequences of applies and
// updates by two or three managers over them (with and without force, on
// the object and on /status, re-applying with fields omitted), each step
// played through the oracle as it is drawn so updates start from the live
// object, as a client's read-modify-write does.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
)

type gen struct {
	r *rand.Rand
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) num(xs ...int64) int64 { return xs[g.r.IntN(len(xs))] }

func obj(kv ...interface{}) map[string]interface{} {
	m := map[string]interface{}{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

var (
	str     = func() map[string]interface{} { return obj("type", "string") }
	integer = func() map[string]interface{} { return obj("type", "integer") }
	boolean = func() map[string]interface{} { return obj("type", "boolean") }
)

func props(kv ...interface{}) map[string]interface{} {
	return obj("type", "object", "properties", obj(kv...))
}

func with(m map[string]interface{}, kv ...interface{}) map[string]interface{} {
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// field is one property of spec: its schema and a value generator.
type field struct {
	schema func() map[string]interface{}
	value  func(g *gen) interface{}
}

func envItems(g *gen, keys []string) []interface{} {
	items := []interface{}{}
	for _, k := range keys {
		if !g.chance(0.5) {
			continue
		}
		item := obj("name", k)
		if g.chance(0.7) {
			item["value"] = g.pick("red", "blue")
		}
		if g.chance(0.4) {
			item["weight"] = g.num(1, 2)
		}
		items = append(items, item)
	}
	return items
}

func endpointItems(g *gen) []interface{} {
	items := []interface{}{}
	for _, host := range []string{"alpha", "beta"} {
		for _, port := range []int64{80, 443} {
			if !g.chance(0.35) {
				continue
			}
			item := obj("host", host, "port", port)
			if g.chance(0.6) {
				item["protocol"] = g.pick("TCP", "UDP")
			}
			if g.chance(0.4) {
				item["weight"] = g.num(1, 5)
			}
			items = append(items, item)
		}
	}
	return items
}

func stringSet(g *gen, pool ...string) []interface{} {
	out := []interface{}{}
	for _, s := range pool {
		if g.chance(0.5) {
			out = append(out, s)
		}
	}
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func stringMap(g *gen, keys ...string) map[string]interface{} {
	m := map[string]interface{}{}
	for _, k := range keys {
		if g.chance(0.5) {
			m[k] = g.pick("one", "two")
		}
	}
	return m
}

func intOrString(g *gen) interface{} {
	if g.chance(0.5) {
		return g.num(8080, 9090)
	}
	return g.pick("http", "metrics")
}

var mapItem = func() map[string]interface{} {
	return with(props("name", str(), "value", str(), "weight", integer()), "required", []interface{}{"name"})
}

// specFields are the fields a case's spec may declare.
var specFields = map[string]field{
	"replicas": {integer, func(g *gen) interface{} { return g.num(1, 2, 3) }},
	"image":    {str, func(g *gen) interface{} { return g.pick("nginx", "redis") }},
	"paused":   {boolean, func(g *gen) interface{} { return g.chance(0.5) }},
	"port": {func() map[string]interface{} { return obj("x-kubernetes-int-or-string", true) },
		func(g *gen) interface{} { return intOrString(g) }},
	// Lists: atomic explicitly and by default, sets, maps by one and two keys.
	"args": {func() map[string]interface{} {
		return obj("type", "array", "items", str(), "x-kubernetes-list-type", "atomic")
	}, func(g *gen) interface{} { return stringSet(g, "-v", "-q", "--x") }},
	"command": {func() map[string]interface{} { return obj("type", "array", "items", str()) },
		func(g *gen) interface{} { return stringSet(g, "run", "serve") }},
	"tags": {func() map[string]interface{} {
		return obj("type", "array", "items", str(), "x-kubernetes-list-type", "set")
	}, func(g *gen) interface{} { return stringSet(g, "a", "b", "c", "d") }},
	"ports": {func() map[string]interface{} {
		return obj("type", "array", "items", integer(), "x-kubernetes-list-type", "set")
	}, func(g *gen) interface{} {
		out := []interface{}{}
		for _, p := range []int64{80, 443, 8080} {
			if g.chance(0.5) {
				out = append(out, p)
			}
		}
		return out
	}},
	"env": {func() map[string]interface{} {
		return obj("type", "array", "items", mapItem(),
			"x-kubernetes-list-type", "map", "x-kubernetes-list-map-keys", []interface{}{"name"})
	}, func(g *gen) interface{} { return envItems(g, []string{"x", "y", "z"}) }},
	"endpoints": {func() map[string]interface{} {
		return obj("type", "array", "items",
			with(props("host", str(), "port", integer(), "protocol", str(), "weight", integer()),
				"required", []interface{}{"host", "port"}),
			"x-kubernetes-list-type", "map", "x-kubernetes-list-map-keys", []interface{}{"host", "port"})
	}, func(g *gen) interface{} { return endpointItems(g) }},
	// Maps: granular by default and explicitly, atomic on
	// additionalProperties and on a struct.
	"labels": {func() map[string]interface{} {
		return obj("type", "object", "additionalProperties", str())
	}, func(g *gen) interface{} { return stringMap(g, "k1", "k2", "k3") }},
	"options": {func() map[string]interface{} {
		return obj("type", "object", "additionalProperties", str(), "x-kubernetes-map-type", "granular")
	}, func(g *gen) interface{} { return stringMap(g, "o1", "o2") }},
	"selector": {func() map[string]interface{} {
		return obj("type", "object", "additionalProperties", str(), "x-kubernetes-map-type", "atomic")
	}, func(g *gen) interface{} { return stringMap(g, "s1", "s2") }},
	"resources": {func() map[string]interface{} {
		return with(props("cpu", str(), "memory", str()), "x-kubernetes-map-type", "atomic")
	}, func(g *gen) interface{} {
		m := map[string]interface{}{}
		if g.chance(0.6) {
			m["cpu"] = g.pick("1", "2")
		}
		if g.chance(0.6) {
			m["memory"] = g.pick("1Gi", "2Gi")
		}
		return m
	}},
	"strategy": {func() map[string]interface{} {
		return with(props("type", str(), "maxSurge", obj("x-kubernetes-int-or-string", true),
			"rolling", props("interval", integer(), "timeout", integer())), "x-kubernetes-map-type", "granular")
	}, func(g *gen) interface{} {
		m := map[string]interface{}{}
		if g.chance(0.5) {
			m["type"] = g.pick("Recreate", "Rolling")
		}
		if g.chance(0.4) {
			m["maxSurge"] = intOrString(g)
		}
		if g.chance(0.5) {
			r := map[string]interface{}{}
			if g.chance(0.6) {
				r["interval"] = g.num(5, 10)
			}
			if g.chance(0.6) {
				r["timeout"] = g.num(30, 60)
			}
			m["rolling"] = r
		}
		return m
	}},
	// Subtrees kept as they come, and an embedded object.
	"extra": {func() map[string]interface{} {
		return obj("type", "object", "x-kubernetes-preserve-unknown-fields", true)
	}, func(g *gen) interface{} {
		m := map[string]interface{}{}
		if g.chance(0.6) {
			m["free"] = g.pick("x", "y")
		}
		if g.chance(0.5) {
			m["nested"] = stringMap(g, "n1", "n2")
		}
		if g.chance(0.3) {
			m["list"] = stringSet(g, "p", "q")
		}
		return m
	}},
	"template": {func() map[string]interface{} {
		return obj("type", "object", "x-kubernetes-embedded-resource", true, "x-kubernetes-preserve-unknown-fields", true)
	}, func(g *gen) interface{} {
		m := obj("apiVersion", "v1", "kind", "ConfigMap", "metadata", obj("name", g.pick("cm1", "cm2")))
		if g.chance(0.7) {
			m["data"] = stringMap(g, "d1", "d2")
		}
		return m
	}},
	// A map list whose items nest a two-key map list, a set and an
	// atomic map.
	"containers": {func() map[string]interface{} {
		item := with(props(
			"name", str(), "image", str(),
			"ports", obj("type", "array", "items",
				with(props("containerPort", integer(), "protocol", str(), "hostPort", integer()),
					"required", []interface{}{"containerPort", "protocol"}),
				"x-kubernetes-list-type", "map", "x-kubernetes-list-map-keys", []interface{}{"containerPort", "protocol"}),
			"flags", obj("type", "array", "items", str(), "x-kubernetes-list-type", "set"),
			"limits", obj("type", "object", "additionalProperties", str(), "x-kubernetes-map-type", "atomic"),
		), "required", []interface{}{"name"})
		return obj("type", "array", "items", item,
			"x-kubernetes-list-type", "map", "x-kubernetes-list-map-keys", []interface{}{"name"})
	}, func(g *gen) interface{} {
		out := []interface{}{}
		for _, name := range []string{"app", "sidecar"} {
			if !g.chance(0.6) {
				continue
			}
			c := obj("name", name)
			if g.chance(0.6) {
				c["image"] = g.pick("img:1", "img:2")
			}
			if g.chance(0.5) {
				ports := []interface{}{}
				for _, p := range []int64{80, 53} {
					for _, proto := range []string{"TCP", "UDP"} {
						if g.chance(0.3) {
							port := obj("containerPort", p, "protocol", proto)
							if g.chance(0.4) {
								port["hostPort"] = g.num(1080, 2080)
							}
							ports = append(ports, port)
						}
					}
				}
				c["ports"] = ports
			}
			if g.chance(0.4) {
				c["flags"] = stringSet(g, "f1", "f2", "f3")
			}
			if g.chance(0.3) {
				c["limits"] = stringMap(g, "cpu", "mem")
			}
			out = append(out, c)
		}
		return out
	}},
}

func statusSchema() map[string]interface{} {
	return props(
		"phase", str(),
		"observed", integer(),
		"conditions", obj("type", "array", "items",
			with(props("type", str(), "status", str(), "reason", str()), "required", []interface{}{"type"}),
			"x-kubernetes-list-type", "map", "x-kubernetes-list-map-keys", []interface{}{"type"}),
	)
}

func statusValue(g *gen) map[string]interface{} {
	m := map[string]interface{}{}
	if g.chance(0.6) {
		m["phase"] = g.pick("Pending", "Ready")
	}
	if g.chance(0.4) {
		m["observed"] = g.num(1, 2)
	}
	if g.chance(0.5) {
		conds := []interface{}{}
		for _, t := range []string{"Ready", "Synced"} {
			if g.chance(0.5) {
				c := obj("type", t)
				if g.chance(0.8) {
					c["status"] = g.pick("True", "False")
				}
				if g.chance(0.3) {
					c["reason"] = g.pick("Ok", "Wait")
				}
				conds = append(conds, c)
			}
		}
		m["conditions"] = conds
	}
	return m
}

// caseGen is the state of one case being drawn.
type caseGen struct {
	*gen
	c        *Case
	fields   []string
	s        *server
	applied  map[string]map[string]interface{} // each manager's last applied spec
	managers []string
}

// Generate draws case number i of a seed and fills its expectations.
func Generate(seed int64, i int) (*Case, error) {
	g := &gen{r: rand.New(rand.NewPCG(uint64(seed), uint64(i)))}
	c := &Case{
		Name:    fmt.Sprintf("case-%d", i),
		Group:   "ssa.example.com",
		Kind:    fmt.Sprintf("Widget%d", i),
		Plural:  fmt.Sprintf("widgets%d", i),
		Version: "v1",
		Scope:   "Namespaced",
	}
	if g.chance(0.2) {
		c.Scope = "Cluster"
	}
	names := make([]string, 0, len(specFields))
	for n := range specFields {
		names = append(names, n)
	}
	sort.Strings(names)
	g.r.Shuffle(len(names), func(a, b int) { names[a], names[b] = names[b], names[a] })
	cg := &caseGen{gen: g, c: c, fields: names[:4+g.r.IntN(5)], applied: map[string]map[string]interface{}{}}
	sort.Strings(cg.fields)
	spec := map[string]interface{}{}
	for _, f := range cg.fields {
		spec[f] = specFields[f].schema()
	}
	c.Schema = props("spec", obj("type", "object", "properties", spec), "status", statusSchema())
	if g.chance(0.5) {
		c.Subresources = map[string]json.RawMessage{"status": json.RawMessage("{}")}
	}
	cg.managers = []string{"m1", "m2"}
	if g.chance(0.6) {
		cg.managers = append(cg.managers, "m3")
	}
	s, err := newServer(c)
	if err != nil {
		return nil, err
	}
	cg.s = s
	steps := 3 + g.r.IntN(5)
	for n := 0; n < steps; n++ {
		var st Step
		var e Expected
		for try := 0; ; try++ {
			st = cg.step(n == 0)
			e, err = s.play(st)
			if !errors.Is(err, errInvalid) || try == 50 {
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: step %d: %v", c.Name, n, err)
		}
		c.Steps = append(c.Steps, st)
		c.Expected = append(c.Expected, e)
		if st.Op == "apply" && st.Subresource == "" && e.Conflicts == nil {
			cg.applied[st.Manager] = st.Object
		}
	}
	return c, nil
}

func (cg *caseGen) meta() map[string]interface{} {
	m := obj("name", "obj")
	if cg.c.Scope == "Namespaced" {
		m["namespace"] = "default"
	}
	return m
}

func (cg *caseGen) envelope() map[string]interface{} {
	return obj("apiVersion", cg.c.Group+"/"+cg.c.Version, "kind", cg.c.Kind, "metadata", cg.meta())
}

func (cg *caseGen) randomSpec() map[string]interface{} {
	spec := map[string]interface{}{}
	for _, f := range cg.fields {
		if cg.chance(0.55) {
			spec[f] = specFields[f].value(cg.gen)
		}
	}
	return spec
}

func (cg *caseGen) step(first bool) Step {
	st := Step{Manager: cg.managers[cg.r.IntN(len(cg.managers))], Op: "apply"}
	if cg.chance(0.3) {
		st.Op = "update"
	}
	if !first && cg.s.status && cg.chance(0.25) {
		st.Subresource = "status"
	}
	if st.Op == "apply" {
		st.Force = !first && cg.chance(0.25)
		o := cg.envelope()
		if st.Subresource == "status" {
			o["status"] = statusValue(cg.gen)
			return withObject(st, o)
		}
		if prev, ok := cg.applied[st.Manager]; ok && cg.chance(0.4) {
			// Apply again with a field omitted: removal by omission.
			o = deepCopy(prev)
			if spec, ok := o["spec"].(map[string]interface{}); ok && len(spec) > 0 {
				keys := make([]string, 0, len(spec))
				for k := range spec {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				delete(spec, keys[cg.r.IntN(len(keys))])
			}
			return withObject(st, o)
		}
		o["spec"] = cg.randomSpec()
		if cg.chance(0.25) {
			o["metadata"].(map[string]interface{})["labels"] = obj("app", cg.pick("web", "db"))
		}
		if cg.chance(0.15) {
			// Status on the main endpoint: stripped when /status exists.
			o["status"] = statusValue(cg.gen)
		}
		return withObject(st, o)
	}
	// An update: the live object changed and sent back whole.
	var o map[string]interface{}
	if cg.s.live == nil {
		o = cg.envelope()
		o["spec"] = cg.randomSpec()
	} else {
		o = deepCopy(cg.s.live.Object)
		meta := o["metadata"].(map[string]interface{})
		for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} {
			delete(meta, f)
		}
		if st.Subresource == "status" {
			o["status"] = statusValue(cg.gen)
		} else {
			spec, _ := o["spec"].(map[string]interface{})
			if spec == nil {
				spec = map[string]interface{}{}
			}
			for _, f := range cg.fields {
				switch {
				case cg.chance(0.3):
					spec[f] = specFields[f].value(cg.gen)
				case cg.chance(0.1):
					delete(spec, f)
				}
			}
			o["spec"] = spec
			if cg.chance(0.2) {
				meta["labels"] = obj("app", cg.pick("web", "db"), "tier", "x")
			}
			if cg.chance(0.1) {
				o["status"] = statusValue(cg.gen)
			}
		}
	}
	return withObject(st, o)
}

func withObject(st Step, o map[string]interface{}) Step {
	st.Object = deepCopy(o)
	return st
}
