// Command ssa-oracle computes what a Kubernetes apiserver answers to a
// sequence of server-side applies and updates of a custom resource, with
// Kubernetes' own field manager (k8s.io/apimachinery/pkg/util/managedfields
// over sigs.k8s.io/structured-merge-diff), for crdstore's differential test
// (tests/it/apply_differential.rs).
//
//	ssa-oracle generate --seed S --count N   # N random cases with "expected"
//	ssa-oracle expect < cases.jsonl          # fills "expected" of each case
//
// Cases are JSON Lines in the format the runner reads (see Case).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "generate":
		flags := flag.NewFlagSet("generate", flag.ExitOnError)
		seed := flags.Int64("seed", 1, "seed of the random cases")
		count := flags.Int("count", 100, "number of cases")
		_ = flags.Parse(os.Args[2:])
		err = generate(os.Stdout, *seed, *count)
	case "expect":
		err = expect(os.Stdin, os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ssa-oracle:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: ssa-oracle generate --seed S --count N | ssa-oracle expect < cases.jsonl")
	os.Exit(2)
}

func generate(w io.Writer, seed int64, count int) error {
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	for i := 0; i < count; i++ {
		c, err := Generate(seed, i)
		if err != nil {
			return err
		}
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return out.Flush()
}

func expect(r io.Reader, w io.Writer) error {
	in := bufio.NewScanner(r)
	in.Buffer(make([]byte, 0, 1<<20), 64<<20)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	for line := 1; in.Scan(); line++ {
		if len(in.Bytes()) == 0 {
			continue
		}
		var c Case
		if err := utiljson.Unmarshal(in.Bytes(), &c); err != nil {
			return fmt.Errorf("line %d: %v", line, err)
		}
		if err := Expect(&c); err != nil {
			return err
		}
		if err := enc.Encode(&c); err != nil {
			return err
		}
	}
	if err := in.Err(); err != nil {
		return err
	}
	return out.Flush()
}
