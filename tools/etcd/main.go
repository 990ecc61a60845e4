// Command etcd is the upstream etcd server, built from its Go modules for
// scripts/bench, which measures crdstore side by side with it. Its pinned
// version is the one in go.mod; main is etcd's own (server/v3's main.go).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
