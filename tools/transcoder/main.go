// Command transcoder is grpc-gateway v2's reverse proxy in front of
// crdstore: the handlers protoc-gen-grpc-gateway generates from the
// google.api.http rules of proto/crdstore/v1, serving crdstore's gRPC API as
// JSON over HTTP (docs/transcoding.md). It is what a deployment behind
// grpc-gateway runs, and what tests/it/transcoding.rs and the docs' example
// drive crdstore through.
//
// The generated package (crdstore/v1) is not committed: scripts/transcoder-env
// generates it with the generators this module pins (its tool lines), beside
// a copy of this file in target/transcoder, and builds the program there.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	// The error details crdstore sends (ErrorInfo, BadRequest), so that an
	// error's body shows them decoded.
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	crdstorev1 "github.com/crdstore/crdstore/tools/transcoder/crdstore/v1"
)

func main() {
	grpcAddr := flag.String("grpc", "127.0.0.1:50051", "crdstore's gRPC address")
	listen := flag.String("listen", "127.0.0.1:8081", "the HTTP address to serve (port 0 picks a free one)")
	flag.Parse()

	conn, err := grpc.NewClient(*grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatalf("transcoder: %v", err)
	}
	ctx := context.Background()
	mux := runtime.NewServeMux()
	for _, register := range []func(context.Context, *runtime.ServeMux, *grpc.ClientConn) error{
		crdstorev1.RegisterCustomResourceDefinitionsHandler,
		crdstorev1.RegisterCustomResourcesHandler,
		crdstorev1.RegisterStorageVersionMigrationsHandler,
		crdstorev1.RegisterMaintenanceHandler,
	} {
		if err := register(ctx, mux, conn); err != nil {
			log.Fatalf("transcoder: %v", err)
		}
	}
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("transcoder: %v", err)
	}
	// One line on stdout that tests read to find the port.
	fmt.Printf("transcoder listening http=%s grpc=%s\n", listener.Addr(), *grpcAddr)
	log.Fatal(http.Serve(listener, mux))
}
