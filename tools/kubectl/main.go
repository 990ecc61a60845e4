// Command kubectl is the upstream kubectl, built from its Go modules for
// machines that have none: the test command's kubectl tests use it when
// no kubectl is on the PATH (scripts/kubectl-env).
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
